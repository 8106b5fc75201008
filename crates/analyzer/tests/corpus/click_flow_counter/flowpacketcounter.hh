#ifndef CLICK_FLOWPACKETCOUNTER_HH
#define CLICK_FLOWPACKETCOUNTER_HH
#include <click/batchelement.hh>
#include <click/hashtable.hh>
#include <click/ipflowid.hh>
CLICK_DECLS

/*
=c
FlowPacketCounter([CAPACITY])

=s ip
counts packets and bytes per TCP/UDP flow
*/

struct FlowStats {
    uint64_t packets;
    uint64_t bytes;
};

class FlowPacketCounter : public BatchElement {
  public:
    FlowPacketCounter() CLICK_COLD;
    ~FlowPacketCounter() CLICK_COLD;

    const char *class_name() const override { return "FlowPacketCounter"; }
    const char *port_count() const override { return PORTS_1_1; }
    const char *processing() const override { return AGNOSTIC; }

    int configure(Vector<String> &conf, ErrorHandler *errh) override CLICK_COLD;
    void add_handlers() override CLICK_COLD;

    Packet *simple_action(Packet *p) override;
#if HAVE_BATCH
    PacketBatch *simple_action_batch(PacketBatch *batch) override;
#endif

  private:
    HashTable<IPFlowID, FlowStats> _flows;
    uint64_t _total;
    uint32_t _capacity;

    static String read_handler(Element *e, void *thunk) CLICK_COLD;
};

CLICK_ENDDECLS
#endif
