/*
 * EtherSwapCount: swaps Ethernet source and destination addresses (a
 * reflector) and keeps global packet statistics.
 */
#include <click/config.h>
#include <click/element.hh>
#include <clicknet/ether.h>
#include <click/atomic.hh>
CLICK_DECLS

class EtherSwapCount : public Element { public:

    EtherSwapCount() : _packets(0), _bytes(0) { }
    const char *class_name() const	{ return "EtherSwapCount"; }
    const char *port_count() const	{ return PORTS_1_1; }

    Packet *simple_action(Packet *p) {
        WritablePacket *q = p->uniqueify();
        if (!q)
            return 0;
        click_ether *ethh = reinterpret_cast<click_ether *>(q->data());
        uint8_t tmp[6];
        memcpy(tmp, ethh->ether_dhost, 6);
        memcpy(ethh->ether_dhost, ethh->ether_shost, 6);
        memcpy(ethh->ether_shost, tmp, 6);
        _packets++;
        _bytes += q->length();
        return q;
    }

  private:
    atomic_uint64_t _packets;
    uint64_t _bytes;
};

CLICK_ENDDECLS
EXPORT_ELEMENT(EtherSwapCount)
