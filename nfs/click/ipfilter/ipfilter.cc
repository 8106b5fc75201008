// SimpleIPFilter::configure and ::simple_action — see ipfilter.hh.
#include "ipfilter.hh"
#include <cstdio>
CLICK_DECLS

int SimpleIPFilter::configure(std::vector<std::string> &conf, click::ErrorHandler *errh)
{
    for (const std::string &arg : conf) {
        char action[8] = {0}, proto[8] = {0};
        unsigned a, b, c, d, len = 32;
        int n = std::sscanf(arg.c_str(), "%7s %u.%u.%u.%u/%u %7s", action, &a, &b, &c, &d, &len, proto);
        if (n < 5 || a > 255 || b > 255 || c > 255 || d > 255 || len > 32)
            return errh->error("expected 'allow|deny A.B.C.D/LEN [tcp|udp|icmp]'");
        Rule r;
        r.allow = std::string(action) == "allow";
        r.mask = len ? 0xffffffffu << (32 - len) : 0;
        r.addr = ((a << 24) | (b << 16) | (c << 8) | d) & r.mask;
        std::string p(proto);
        r.proto = p == "tcp" ? click::IP_PROTO_TCP : p == "udp" ? click::IP_PROTO_UDP : p == "icmp" ? click::IP_PROTO_ICMP : 0;
        _rules.push_back(r);
    }
    return 0;
}

click::Packet *SimpleIPFilter::simple_action(click::Packet *p)
{
    const click::click_ip *iph = p->ip_header();
    if (!iph) {
        p->kill();
        return nullptr;
    }
    uint32_t src = click::ntohl(iph->ip_src);
    for (const Rule &r : _rules) {
        if ((src & r.mask) == r.addr && (!r.proto || r.proto == iph->ip_p)) {
            if (r.allow)
                return p;
            p->kill();
            return nullptr;
        }
    }
    p->kill();
    return nullptr;
}

CLICK_ENDDECLS
EXPORT_ELEMENT(SimpleIPFilter)
