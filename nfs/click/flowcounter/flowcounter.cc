// FlowCounter::simple_action — see flowcounter.hh.
#include "flowcounter.hh"
CLICK_DECLS

click::Packet *FlowCounter::simple_action(click::Packet *p)
{
    if (!p->has_network_header())
        return p;
    click::IPFlowID flowid(p);
    FlowStats &stats = _flows.find_insert(flowid);
    stats.packets++;
    stats.bytes += p->length();
    return p;
}

CLICK_ENDDECLS
EXPORT_ELEMENT(FlowCounter)
