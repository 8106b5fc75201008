// element.hh — a minimal Click-like Element base class: push(port, p) and
// simple_action(p), output ports, and configure() over "KEY value"
// arguments. Enough to write elements in FastClick's style for analysis.
#ifndef NFC_CLICK_ELEMENT_HH
#define NFC_CLICK_ELEMENT_HH
#include "packet.hh"
#include <string>
#include <vector>

namespace click {

class ErrorHandler {
  public:
    int error(const char *msg) { last = msg; return -1; }
    std::string last;
};

class Element {
  public:
    virtual ~Element() {}
    virtual const char *class_name() const = 0;
    virtual const char *port_count() const { return "1/1"; }
    virtual int configure(std::vector<std::string> &conf, ErrorHandler *errh) { (void)conf; (void)errh; return 0; }

    // Agnostic elements override simple_action; push elements override push.
    virtual Packet *simple_action(Packet *p) { return p; }
    virtual void push(int port, Packet *p) {
        (void)port;
        if (Packet *q = simple_action(p))
            output(0).push(q);
    }

    class Port {
      public:
        void push(Packet *p) { last = p; }
        Packet *last = nullptr;
    };
    Port &output(int i) { if (i >= static_cast<int>(_outputs.size())) _outputs.resize(i + 1); return _outputs[i]; }
    bool output_is_connected(int i) const { return i < static_cast<int>(_outputs.size()); }

    void checked_output_push(int port, Packet *p) {
        if (port >= 0 && output_is_connected(port))
            output(port).push(p);
        else
            p->kill();
    }

  private:
    std::vector<Port> _outputs;
};

} // namespace click
#endif
