// packet.hh — a minimal Click-like Packet for nfc's Click-style elements.
// Just enough of Click's API (data(), length(), network/transport header
// accessors, kill()) for elements to be written the way FastClick elements
// are, so the analyzer sees idiomatic Click code. Not a Click runtime.
#ifndef NFC_CLICK_PACKET_HH
#define NFC_CLICK_PACKET_HH
#include <cstddef>
#include <cstdint>
#include <cstring>

#define CLICK_DECLS
#define CLICK_ENDDECLS
#define EXPORT_ELEMENT(x)

namespace click {

struct click_ip {
    uint8_t ip_vhl, ip_tos;
    uint16_t ip_len, ip_id, ip_off;
    uint8_t ip_ttl, ip_p;
    uint16_t ip_sum;
    uint32_t ip_src, ip_dst;
} __attribute__((packed));

struct click_tcp {
    uint16_t th_sport, th_dport;
    uint32_t th_seq, th_ack;
    uint8_t th_off, th_flags;
    uint16_t th_win, th_sum, th_urp;
} __attribute__((packed));

struct click_udp {
    uint16_t uh_sport, uh_dport, uh_ulen, uh_sum;
} __attribute__((packed));

enum { IP_PROTO_ICMP = 1, IP_PROTO_TCP = 6, IP_PROTO_UDP = 17 };

inline uint16_t ntohs(uint16_t v) { return static_cast<uint16_t>((v >> 8) | (v << 8)); }
inline uint32_t ntohl(uint32_t v) { return __builtin_bswap32(v); }

class Packet {
  public:
    Packet(unsigned char *data, uint32_t length) : _data(data), _length(length), _nh(-1), _th(-1) {}

    const unsigned char *data() const { return _data; }
    unsigned char *mutable_data() { return _data; }
    uint32_t length() const { return _length; }

    // Header annotations, set by a classifier/CheckIPHeader upstream.
    bool has_network_header() const { return _nh >= 0; }
    void set_network_header(int offset) { _nh = offset; }
    void set_transport_header(int offset) { _th = offset; }
    const click_ip *ip_header() const { return _nh >= 0 ? reinterpret_cast<const click_ip *>(_data + _nh) : nullptr; }
    const click_tcp *tcp_header() const { return _th >= 0 ? reinterpret_cast<const click_tcp *>(_data + _th) : nullptr; }
    const click_udp *udp_header() const { return _th >= 0 ? reinterpret_cast<const click_udp *>(_data + _th) : nullptr; }
    uint32_t transport_length() const { return _th >= 0 && static_cast<uint32_t>(_th) <= _length ? _length - _th : 0; }

    void kill() { _killed = true; }
    bool killed() const { return _killed; }

  private:
    unsigned char *_data;
    uint32_t _length;
    int _nh, _th;
    bool _killed = false;
};

} // namespace click
#endif
