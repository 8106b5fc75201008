#ifndef CLICK_FLOWPOLICER_HH
#define CLICK_FLOWPOLICER_HH
#include <click/flow/flowelement.hh>
#include <click/timestamp.hh>
CLICK_DECLS

struct PolicerState {
    uint64_t last_refill;
    uint32_t tokens;
    uint32_t dropped;
};

class FlowPolicer : public FlowStateElement<FlowPolicer, PolicerState> {
  public:
    FlowPolicer() CLICK_COLD;
    const char *class_name() const override { return "FlowPolicer"; }
    const char *port_count() const override { return "1/1"; }
    const char *processing() const override { return PUSH; }
    int configure(Vector<String> &, ErrorHandler *) override CLICK_COLD;

    static const int timeout = 15000;
    bool new_flow(PolicerState *, Packet *);
    void release_flow(PolicerState *) {}
    void push_flow(int port, PolicerState *state, PacketBatch *batch);

  private:
    uint32_t _rate;
    uint32_t _burst;
};

CLICK_ENDDECLS
#endif
