/* Fresh6 held-out set: Wireshark 4.0.17's Bluetooth BR/EDR RF checks
 * (epan/dissectors/packet-btbredr_rf.c: broken_check_hec, the header's
 * HEC as an LFSR with each header bit fed in; check_hec, the HEC as a
 * reflected bitwise CRC-8 over the header with the UAP as preset;
 * check_crc, the payload's reflected CRC-CCITT; reverse_bits, a bit
 * reversal by swaps), verbatim (extracted at bench time from
 * $NFC_CORPUS_DIR). tvb_get_guint8 stays external. */
#include <stdint.h>
typedef uint8_t guint8;
typedef int8_t gint8;
typedef uint16_t guint16;
typedef uint32_t guint32;
typedef unsigned int guint;
typedef int gint;
typedef int gboolean;
typedef struct tvbuff tvbuff_t;
guint8 tvb_get_guint8(tvbuff_t *tvb, const gint offset);
//@extract wireshark/epan/dissectors/packet-btbredr_rf.c reverse_bits broken_check_hec check_hec check_crc
gboolean wrap_broken_check_hec(guint8 u, guint32 h) { return broken_check_hec(u, h); }
gboolean wrap_check_hec(guint8 u, guint32 h) { return check_hec(u, h); }
gboolean wrap_check_crc(guint8 u, tvbuff_t *t, gint o, gint l) { return check_crc(u, t, o, l); }
