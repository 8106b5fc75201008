// FlowCounter — counts packets and bytes per IPv4 5-tuple (IPFlowID) in a
// chained HashTable, in the style of FastClick's FlowCounter. Every packet
// updates its flow's counters. Agnostic, 1 input / 1 output.
#ifndef NFC_CLICK_FLOWCOUNTER_HH
#define NFC_CLICK_FLOWCOUNTER_HH
#include <click/element.hh>
#include <click/hashtable.hh>
#include <click/ipflowid.hh>
CLICK_DECLS

class FlowCounter : public click::Element {
  public:
    struct FlowStats {
        uint64_t packets = 0;
        uint64_t bytes = 0;
    };

    FlowCounter() : _flows(4096) {}
    const char *class_name() const override { return "FlowCounter"; }
    click::Packet *simple_action(click::Packet *p) override;
    size_t nflows() const { return _flows.size(); }

  private:
    click::HashTable<click::IPFlowID, FlowStats> _flows;
};

CLICK_ENDDECLS
#endif
