/* Fresh7 held-out set: libdvbpsi 1.3.3's MPEG-2 section CRC (psi.c:
 * dvbpsi_CalculateCRC32, CRC-32/MPEG-2 byte-table step MSB-first with the
 * register kept in the section struct, then stored big-endian after the
 * payload; dvbpsi_ValidPSISection, the same over payload and CRC, valid
 * when the register ends at zero; the static table dvbpsi_crc32_table)
 * and the section header writer dvbpsi_BuildPSISection with psi.h's
 * inline dvbpsi_has_CRC32, verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). The error printer stays external. */
#include <stdint.h>
#include <stdbool.h>
typedef struct dvbpsi_s dvbpsi_t;
typedef struct dvbpsi_psi_section_s dvbpsi_psi_section_t;
struct dvbpsi_psi_section_s
{
  uint8_t       i_table_id;
  bool          b_syntax_indicator;
  bool          b_private_indicator;
  uint16_t      i_length;
  uint16_t      i_extension;
  uint8_t       i_version;
  bool          b_current_next;
  uint8_t       i_number;
  uint8_t       i_last_number;
  uint8_t *     p_data;
  uint8_t *     p_payload_start;
  uint8_t *     p_payload_end;
  uint32_t      i_crc;
  struct dvbpsi_psi_section_s *         p_next;
};
void dvbpsi_error(dvbpsi_t *dvbpsi, const char *src, const char *str, ...);
//@extract libdvbpsi/src/psi.c dvbpsi_crc32_table
//@extract libdvbpsi/src/psi.h dvbpsi_has_CRC32
//@extract libdvbpsi/src/psi.c dvbpsi_CalculateCRC32 dvbpsi_ValidPSISection dvbpsi_BuildPSISection
