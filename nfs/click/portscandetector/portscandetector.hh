// IPPortScanDetector — per-source port-scan detection in the style of
// FastClick's IPortScanDetector: a HashTable keyed by source address holds
// the recently contacted destination ports of each source; a source that
// reaches THRESHOLD distinct ports is sent to output 1 (or dropped when
// output 1 is unconnected). Push, 1 input / 2 outputs.
#ifndef NFC_CLICK_PORTSCANDETECTOR_HH
#define NFC_CLICK_PORTSCANDETECTOR_HH
#include <click/element.hh>
#include <click/hashtable.hh>
CLICK_DECLS

class IPPortScanDetector : public click::Element {
  public:
    enum { MAX_PORTS = 32 };
    struct SourceInfo {
        uint16_t ports[MAX_PORTS] = {};
        uint32_t nports = 0;
        uint32_t packets = 0;
        bool scanner = false;
    };

    IPPortScanDetector() : _sources(8192), _threshold(16) {}
    const char *class_name() const override { return "IPPortScanDetector"; }
    const char *port_count() const override { return "1/1-2"; }
    int configure(std::vector<std::string> &conf, click::ErrorHandler *errh) override;
    void push(int port, click::Packet *p) override;

  private:
    click::HashTable<uint32_t, SourceInfo> _sources;
    uint32_t _threshold;
};

CLICK_ENDDECLS
#endif
