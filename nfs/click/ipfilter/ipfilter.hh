// SimpleIPFilter — a stateless IP filter: an ordered list of
// "allow|deny SRC/LEN [PROTO]" rules; the first match decides, unmatched
// packets are denied. Agnostic, 1 input / 1 output; no per-flow state.
#ifndef NFC_CLICK_IPFILTER_HH
#define NFC_CLICK_IPFILTER_HH
#include <click/element.hh>
CLICK_DECLS

class SimpleIPFilter : public click::Element {
  public:
    struct Rule {
        bool allow;
        uint32_t addr, mask; // host order
        uint8_t proto;       // 0 = any
    };

    const char *class_name() const override { return "SimpleIPFilter"; }
    int configure(std::vector<std::string> &conf, click::ErrorHandler *errh) override;
    click::Packet *simple_action(click::Packet *p) override;

  private:
    std::vector<Rule> _rules;
};

CLICK_ENDDECLS
#endif
