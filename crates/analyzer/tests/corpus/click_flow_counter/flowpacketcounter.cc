/*
 * flowpacketcounter.cc -- per-flow packet/byte counters for FastClick
 */
#include <click/config.h>
#include "flowpacketcounter.hh"
#include <click/args.hh>
#include <click/error.hh>
#include <clicknet/ip.h>
CLICK_DECLS

FlowPacketCounter::FlowPacketCounter() : _total(0), _capacity(65536)
{
}

FlowPacketCounter::~FlowPacketCounter()
{
}

int
FlowPacketCounter::configure(Vector<String> &conf, ErrorHandler *errh)
{
    if (Args(conf, this, errh).read_p("CAPACITY", _capacity).complete() < 0)
        return -1;
    _flows.rehash(_capacity);
    return 0;
}

Packet *
FlowPacketCounter::simple_action(Packet *p)
{
    const click_ip *iph = p->ip_header();
    if (!iph || (iph->ip_p != IP_PROTO_TCP && iph->ip_p != IP_PROTO_UDP))
        return p;
    IPFlowID flow(p);
    FlowStats &st = _flows[flow];
    st.packets++;
    st.bytes += p->length();
    _total++;
    return p;
}

#if HAVE_BATCH
PacketBatch *
FlowPacketCounter::simple_action_batch(PacketBatch *batch)
{
    EXECUTE_FOR_EACH_PACKET(simple_action, batch);
    return batch;
}
#endif

String
FlowPacketCounter::read_handler(Element *e, void *)
{
    FlowPacketCounter *fc = static_cast<FlowPacketCounter *>(e);
    return String(fc->_flows.size());
}

void
FlowPacketCounter::add_handlers()
{
    add_read_handler("flows", read_handler, 0);
}

CLICK_ENDDECLS
EXPORT_ELEMENT(FlowPacketCounter)
ELEMENT_MT_SAFE(FlowPacketCounter)
