// -*- c-basic-offset: 4 -*-
/*
 * SourceCounter: tracks packets per IPv4 source address and marks heavy
 * sources by setting the paint annotation.
 */
#include <click/config.h>
#include <click/element.hh>
#include <click/hashmap.hh>
#include <click/ipaddress.hh>
#include <click/args.hh>
#include <clicknet/ip.h>
CLICK_DECLS

class SourceCounter : public Element {
  public:
    SourceCounter() : _threshold(1000), _drops(0) { }
    const char *class_name() const { return "SourceCounter"; }
    const char *port_count() const { return "1/1-2"; }
    const char *processing() const { return PUSH; }
    int configure(Vector<String> &conf, ErrorHandler *errh);
    void push(int port, Packet *p);

  private:
    HashMap<IPAddress, uint32_t> _counts;
    uint32_t _threshold;
    uint64_t _drops;
};

int
SourceCounter::configure(Vector<String> &conf, ErrorHandler *errh)
{
    return Args(conf, this, errh).read("THRESHOLD", _threshold).complete();
}

void
SourceCounter::push(int, Packet *p)
{
    const click_ip *ip = p->ip_header();
    IPAddress src(ip->ip_src);
    uint32_t *c = _counts.findp(src);
    if (!c) {
        _counts.insert(src, 1);
        output(0).push(p);
        return;
    } else {
        (*c)++;
    }
    if (*c > _threshold && noutputs() > 1) {
        _drops++;
        output(1).push(p);
    } else
        output(0).push(p);
}

CLICK_ENDDECLS
EXPORT_ELEMENT(SourceCounter)
