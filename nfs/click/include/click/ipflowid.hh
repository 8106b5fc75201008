// ipflowid.hh — Click's IPFlowID: the IPv4 5-tuple of a packet (addresses
// and ports in network order, plus the protocol), hashable and comparable,
// used as the key of per-flow HashTables.
#ifndef NFC_CLICK_IPFLOWID_HH
#define NFC_CLICK_IPFLOWID_HH
#include "packet.hh"

namespace click {

class IPFlowID {
  public:
    IPFlowID() : _saddr(0), _daddr(0), _sport(0), _dport(0), _proto(0) {}
    explicit IPFlowID(const Packet *p) : IPFlowID() {
        const click_ip *iph = p->ip_header();
        if (!iph)
            return;
        _saddr = iph->ip_src;
        _daddr = iph->ip_dst;
        _proto = iph->ip_p;
        if ((_proto == IP_PROTO_TCP || _proto == IP_PROTO_UDP) && p->transport_length() >= 4) {
            const click_udp *udph = p->udp_header();
            _sport = udph->uh_sport;
            _dport = udph->uh_dport;
        }
    }
    uint32_t saddr() const { return _saddr; }
    uint32_t daddr() const { return _daddr; }
    uint16_t sport() const { return _sport; }
    uint16_t dport() const { return _dport; }
    uint8_t proto() const { return _proto; }

    size_t hashcode() const {
        uint64_t h = (static_cast<uint64_t>(_saddr) << 32 | _daddr) ^ (static_cast<uint64_t>(_sport) << 24) ^
                     (static_cast<uint64_t>(_dport) << 8) ^ _proto;
        return static_cast<size_t>(h * 0x9E3779B97F4A7C15ull);
    }
    bool operator==(const IPFlowID &o) const {
        return _saddr == o._saddr && _daddr == o._daddr && _sport == o._sport && _dport == o._dport && _proto == o._proto;
    }

  private:
    uint32_t _saddr, _daddr;
    uint16_t _sport, _dport;
    uint8_t _proto;
};

} // namespace click
#endif
