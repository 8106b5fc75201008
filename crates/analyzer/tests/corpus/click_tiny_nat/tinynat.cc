/*
 * TinyNAT: a minimal masquerading NAT element. Port 0 carries
 * inside->outside traffic, port 1 outside->inside. A mapping is created for
 * the first packet of each inside flow; replies are matched on the reversed
 * flow ID. Mappings are only read afterwards.
 */
#include <click/config.h>
#include <click/element.hh>
#include <click/hashtable.hh>
#include <click/ipflowid.hh>
#include <click/args.hh>
#include <clicknet/ip.h>
#include <clicknet/tcp.h>
CLICK_DECLS

struct NatMapping {
    IPAddress orig_addr;
    uint16_t orig_port;
    uint16_t new_port;
    bool outbound;
};

class TinyNAT : public Element {
  public:
    TinyNAT() : _next_port(10000) {}
    const char *class_name() const override { return "TinyNAT"; }
    const char *port_count() const override { return "2/2"; }
    const char *processing() const override { return PUSH; }
    int configure(Vector<String> &conf, ErrorHandler *errh) override;
    void push(int port, Packet *p) override;

  private:
    HashTable<IPFlowID, NatMapping> _map;
    IPAddress _public;
    uint16_t _next_port;
    void rewrite(WritablePacket *q, const NatMapping &m, bool outbound);
};

int
TinyNAT::configure(Vector<String> &conf, ErrorHandler *errh)
{
    return Args(conf, this, errh).read_mp("ADDR", _public).complete();
}

void
TinyNAT::rewrite(WritablePacket *q, const NatMapping &m, bool outbound)
{
    click_ip *iph = q->ip_header();
    click_tcp *th = q->tcp_header();
    if (outbound) {
        iph->ip_src = _public.in_addr();
        th->th_sport = htons(m.new_port);
    } else {
        iph->ip_dst = m.orig_addr.in_addr();
        th->th_dport = htons(m.orig_port);
    }
    click_update_in_cksum(&iph->ip_sum, 0, 0);
}

void
TinyNAT::push(int port, Packet *p)
{
    WritablePacket *q = p->uniqueify();
    if (!q)
        return;
    if (port == 0) {
        IPFlowID flow(q);
        NatMapping *m = _map.get_pointer(flow);
        if (!m) {
            NatMapping fresh;
            fresh.orig_addr = flow.saddr();
            fresh.orig_port = ntohs(flow.sport());
            fresh.new_port = _next_port++;
            fresh.outbound = true;
            _map.set(flow, fresh);
            IPFlowID back(_public, htons(fresh.new_port), flow.daddr(), flow.dport());
            _map.set(back.reverse(), fresh);
            m = _map.get_pointer(flow);
        }
        rewrite(q, *m, true);
        output(0).push(q);
    } else {
        IPFlowID flow(q, true);
        NatMapping *m = _map.get_pointer(flow);
        if (!m) {
            q->kill();
            return;
        }
        rewrite(q, *m, false);
        output(1).push(q);
    }
}

CLICK_ENDDECLS
EXPORT_ELEMENT(TinyNAT)
