#include <click/config.h>
#include "flowpolicer.hh"
#include <click/args.hh>
#include <click/error.hh>
CLICK_DECLS

FlowPolicer::FlowPolicer() : _rate(1000), _burst(64)
{
}

int
FlowPolicer::configure(Vector<String> &conf, ErrorHandler *errh)
{
    if (Args(conf, this, errh).read_mp("RATE", _rate).read("BURST", _burst).complete() < 0)
        return -1;
    return 0;
}

bool
FlowPolicer::new_flow(PolicerState *state, Packet *)
{
    state->tokens = _burst;
    state->last_refill = Timestamp::now_steady().msecval();
    state->dropped = 0;
    return true;
}

void
FlowPolicer::push_flow(int, PolicerState *state, PacketBatch *batch)
{
    uint64_t now = Timestamp::now_steady().msecval();
    uint64_t elapsed = now - state->last_refill;
    if (elapsed > 0) {
        uint64_t add = elapsed * _rate / 1000;
        state->tokens = (state->tokens + add > _burst) ? _burst : state->tokens + add;
        state->last_refill = now;
    }
    auto fnt = [this, state](Packet *p) -> Packet * {
        if (state->tokens == 0) {
            state->dropped++;
            p->kill();
            return 0;
        }
        state->tokens--;
        return p;
    };
    EXECUTE_FOR_EACH_PACKET_DROPPABLE(fnt, batch, [](Packet *) {});
    if (batch)
        output_push_batch(0, batch);
}

CLICK_ENDDECLS
EXPORT_ELEMENT(FlowPolicer)
ELEMENT_MT_SAFE(FlowPolicer)
