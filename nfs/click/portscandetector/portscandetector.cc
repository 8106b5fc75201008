// IPPortScanDetector::configure and ::push — see portscandetector.hh.
#include "portscandetector.hh"
#include <cstdlib>
CLICK_DECLS

int IPPortScanDetector::configure(std::vector<std::string> &conf, click::ErrorHandler *errh)
{
    for (const std::string &arg : conf) {
        if (arg.rfind("THRESHOLD ", 0) == 0) {
            long v = std::strtol(arg.c_str() + 10, nullptr, 10);
            if (v <= 0 || v > MAX_PORTS)
                return errh->error("THRESHOLD must be between 1 and 32");
            _threshold = static_cast<uint32_t>(v);
        } else {
            return errh->error("unknown argument");
        }
    }
    return 0;
}

void IPPortScanDetector::push(int, click::Packet *p)
{
    const click::click_ip *iph = p->ip_header();
    if (!iph || (iph->ip_p != click::IP_PROTO_TCP && iph->ip_p != click::IP_PROTO_UDP) || p->transport_length() < 4) {
        output(0).push(p);
        return;
    }
    uint16_t dport = click::ntohs(p->udp_header()->uh_dport);
    SourceInfo &src = _sources.find_insert(iph->ip_src);
    src.packets++;
    bool seen = false;
    for (uint32_t i = 0; i < src.nports; i++)
        seen |= src.ports[i] == dport;
    if (!seen && src.nports < MAX_PORTS)
        src.ports[src.nports++] = dport;
    if (src.nports >= _threshold)
        src.scanner = true;
    if (src.scanner)
        checked_output_push(1, p);
    else
        output(0).push(p);
}

CLICK_ENDDECLS
EXPORT_ELEMENT(IPPortScanDetector)
