/*
 * robust.c — robustness harness, linked with one NF and built with
 * AddressSanitizer and UBSan. It calls nf_init with the key=value pairs
 * given on the command line (the NF's default config, flattened), then
 * feeds one state instance a corpus of valid and malformed frames:
 * truncations of every valid frame at every length, every IHL value, bad IP
 * total lengths, every TCP data offset, bad UDP lengths, IP options,
 * fragments, 802.1Q and QinQ stacks, zero-length payloads, Ethernet
 * padding, seeded byte flips, and a flood of distinct flows that fills the
 * NF's tables. Any out-of-bounds access or undefined behaviour aborts the
 * process; a verdict outside [NF_DROP, n_ports) fails it.
 *
 * `robust --write-seeds DIR [key=value...]` instead writes the valid frames
 * as a libFuzzer seed corpus (fuzz_nf.c's record format).
 */
#include "pkt.h"

#define MAX_KV 4096
#define N_BASE 16

static uint32_t n_ports_allowed = 1;
static uint64_t packets_run;
static uint32_t bad_verdicts;

static uint32_t base_frames(uint8_t frames[N_BASE][PKT_MAX], uint32_t lens[N_BASE])
{
    static const char http[] = "GET /admin HTTP/1.0\r\nHost: x\r\n\r\n";
    static const char shell[] = "xx /bin/sh -c id";
    static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x11};
    struct pkt_spec s;
    uint32_t n = 0;

    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 5), ip4(10, 0, 0, 1), 40000, 80);
    s.tcp_flags = NF_TCP_SYN;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 5), ip4(192, 168, 1, 1), 40001, 80);
    s.payload = http, s.payload_len = sizeof http - 1;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_UDP, ip4(172, 16, 0, 9), ip4(10, 0, 0, 1), 5353, 53);
    s.payload = "evil", s.payload_len = 4;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_ICMP, ip4(10, 0, 0, 7), ip4(10, 0, 0, 1), 0, 0);
    s.payload = "pingpingpingping", s.payload_len = 16, s.icmp_id = 7, s.icmp_seq = 1;
    lens[n] = build(frames[n], &s), n++;
    lens[n] = build_arp(frames[n], 1, mac, ip4(10, 0, 0, 9), ip4(10, 0, 0, 1)), n++;
    s = spec(NF_IPPROTO_UDP, 1, 2, 1000, 2000);
    s.ipv6 = 1, s.payload = "v6", s.payload_len = 2;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_TCP, ip4(10, 1, 0, 1), ip4(10, 1, 0, 2), 1111, 22);
    s.vlans = 1, s.payload = shell, s.payload_len = sizeof shell - 1;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_UDP, ip4(10, 2, 0, 1), ip4(10, 2, 0, 2), 2222, 53);
    s.vlans = 2, s.payload = "qinq", s.payload_len = 4;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_TCP, ip4(10, 3, 0, 1), ip4(10, 3, 0, 2), 3333, 443);
    s.ip_opts_len = 40, s.tcp_flags = NF_TCP_SYN;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_UDP, ip4(10, 4, 0, 1), ip4(10, 4, 0, 2), 4444, 53);
    s.frag = 0x2000, s.payload = "first-fragment-data", s.payload_len = 19;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_UDP, ip4(10, 4, 0, 1), ip4(10, 4, 0, 2), 4444, 53);
    s.frag = 0x0010, s.payload = "middle", s.payload_len = 6;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_UDP, ip4(10, 5, 0, 1), ip4(10, 5, 0, 2), 5555, 5555);
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_TCP, ip4(10, 0, 0, 5), ip4(10, 0, 0, 1), 40000, 80);
    s.tcp_flags = NF_TCP_FIN | NF_TCP_ACK;
    lens[n] = build(frames[n], &s), n++;
    s = spec(NF_IPPROTO_ICMP, ip4(10, 0, 0, 7), ip4(10, 0, 0, 1), 0, 0);
    lens[n] = build(frames[n], &s), n++; /* echo request with no data */
    s = spec(47 /* GRE */, ip4(10, 6, 0, 1), ip4(10, 6, 0, 2), 0, 0);
    s.payload = "\x00\x00\x08\x00", s.payload_len = 4;
    lens[n] = build(frames[n], &s), n++;
    memset(frames[n], 0, PKT_MAX);
    memset(frames[n], 0xff, 12);
    put16(frames[n] + 12, 0x88cc); /* LLDP */
    lens[n] = 60, n++;
    return n;
}

static void feed(void *st, const uint8_t *frame, uint32_t len, uint64_t now)
{
    uint8_t copy[PKT_MAX];
    int32_t v;
    memcpy(copy, frame, len);
    v = run_pkt(st, copy, len, (uint32_t)(packets_run % 4), now);
    packets_run++;
    if (v < NF_DROP || (v >= 0 && (uint32_t)v >= n_ports_allowed)) {
        if (bad_verdicts++ < 5)
            fprintf(stderr, "verdict %d out of range (n_ports %u) for a %u-byte frame\n", v, n_ports_allowed, len);
    }
}

static void digest_sink(void *cb, const void *bytes, size_t len)
{
    const uint8_t *p = bytes;
    uint64_t *acc = cb;
    for (size_t i = 0; i < len; i++)
        *acc = (*acc ^ p[i]) * 1099511628211ull;
}

static int write_seeds(const char *dir, uint8_t frames[N_BASE][PKT_MAX], const uint32_t *lens, uint32_t n)
{
    char path[4096];
    for (uint32_t i = 0; i <= n; i++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/seed-%02u", dir, i);
        f = fopen(path, "wb");
        if (!f) {
            perror(path);
            return 2;
        }
        /* seed i < n: frame i alone; seed n: every frame as one sequence. */
        for (uint32_t j = (i < n ? i : 0); j < (i < n ? i + 1 : n); j++) {
            uint8_t hdr[3] = {(uint8_t)(j & 3), (uint8_t)(lens[j] >> 8), (uint8_t)lens[j]};
            fwrite(hdr, 1, 3, f);
            fwrite(frames[j], 1, lens[j], f);
        }
        fclose(f);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct nf_kv kv[MAX_KV];
    static uint8_t frames[N_BASE][PKT_MAX];
    uint32_t lens[N_BASE], n_frames, n_kv = 0;
    const char *seed_dir = 0;
    struct nf_config cfg;
    char err[256] = "";
    uint64_t now = 1 * SEC, rng = 0x9e3779b97f4a7c15ull;
    void *st;

    for (int i = 1; i < argc; i++) {
        char *eq;
        if (!strcmp(argv[i], "--write-seeds") && i + 1 < argc) {
            seed_dir = argv[++i];
            continue;
        }
        eq = strchr(argv[i], '=');
        if (!eq || n_kv == MAX_KV) {
            fprintf(stderr, "usage: robust [--write-seeds DIR] key=value...\n");
            return 2;
        }
        *eq = 0;
        kv[n_kv].key = argv[i];
        kv[n_kv].value = eq + 1;
        n_kv++;
    }
    n_frames = base_frames(frames, lens);
    if (seed_dir)
        return write_seeds(seed_dir, frames, lens, n_frames);

    cfg.items = kv;
    cfg.n_items = n_kv;
    if (nf_init(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "nf_init rejected the default config: %s\n", err);
        return 1;
    }
    n_ports_allowed = nf_describe()->n_ports;
    st = new_state();

    for (uint32_t b = 0; b < n_frames; b++) {
        uint8_t f[PKT_MAX];
        uint32_t len = lens[b], l3 = l3_offset(frames[b]);
        int is_ip4 = get16(frames[b] + l3 - 2) == NF_ETH_P_IPV4;

        /* the valid frame, with Ethernet padding, and every truncation */
        feed(st, frames[b], len, now += MS);
        feed(st, frames[b], len + 30 < PKT_MAX ? len + 30 : len, now += MS);
        for (uint32_t cut = 0; cut < len; cut++)
            feed(st, frames[b], cut, now += 1000);
        if (is_ip4) {
            uint32_t ihl = (uint32_t)(frames[b][l3] & 15) * 4;
            uint8_t proto = frames[b][l3 + 9];
            static const uint16_t tot_lens[] = {0, 1, 19, 20, 21, 28, 60, 1500, 65535};
            for (uint32_t v = 0; v < 16; v++) { /* every IHL */
                memcpy(f, frames[b], len);
                f[l3] = (uint8_t)(0x40 | v);
                feed(st, f, len, now += MS);
            }
            for (uint32_t v = 0; v < 16; v++) { /* every IP version nibble */
                memcpy(f, frames[b], len);
                f[l3] = (uint8_t)(v << 4 | (f[l3] & 15));
                feed(st, f, len, now += MS);
            }
            for (uint32_t k = 0; k < sizeof tot_lens / sizeof tot_lens[0]; k++) {
                memcpy(f, frames[b], len);
                put16(f + l3 + 2, tot_lens[k]);
                feed(st, f, len, now += MS);
            }
            for (uint32_t k = 0; k < 4; k++) { /* fragment bits */
                static const uint16_t frag[] = {0x2000, 0x0001, 0x1fff, 0x4000};
                memcpy(f, frames[b], len);
                put16(f + l3 + 6, frag[k]);
                feed(st, f, len, now += MS);
            }
            if (proto == NF_IPPROTO_TCP && len >= l3 + ihl + 20)
                for (uint32_t v = 0; v < 16; v++) { /* every TCP data offset */
                    memcpy(f, frames[b], len);
                    f[l3 + ihl + 12] = (uint8_t)(v << 4);
                    feed(st, f, len, now += MS);
                }
            if (proto == NF_IPPROTO_UDP && len >= l3 + ihl + 8)
                for (uint32_t k = 0; k < 4; k++) {
                    static const uint16_t ulen[] = {0, 7, 9, 65535};
                    memcpy(f, frames[b], len);
                    put16(f + l3 + ihl + 4, ulen[k]);
                    feed(st, f, len, now += MS);
                }
            for (uint32_t p = 0; p < 256; p += 1) { /* every protocol number */
                memcpy(f, frames[b], len);
                f[l3 + 9] = (uint8_t)p;
                feed(st, f, len, now += 1000);
            }
        }
        for (uint32_t k = 0; k < 4; k++) { /* ethertype confusion */
            static const uint16_t types[] = {NF_ETH_P_VLAN, NF_ETH_P_QINQ, NF_ETH_P_ARP, NF_ETH_P_IPV6};
            memcpy(f, frames[b], len);
            put16(f + 12, types[k]);
            feed(st, f, len, now += MS);
        }
        for (uint32_t k = 0; k < 64; k++) { /* seeded byte flips */
            memcpy(f, frames[b], len);
            for (int flips = 0; flips < 3; flips++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                f[rng % len] ^= (uint8_t)(rng >> 32 | 1);
            }
            feed(st, f, len, now += 1000);
        }
    }
    /* three VLAN tags: more than nf_parse skips */
    {
        uint8_t f[PKT_MAX];
        struct pkt_spec s = spec(NF_IPPROTO_UDP, ip4(10, 9, 0, 1), ip4(10, 9, 0, 2), 1, 2);
        uint32_t len;
        s.vlans = 2;
        len = build(f, &s);
        memmove(f + 16, f + 12, len - 12);
        put16(f + 12, NF_ETH_P_VLAN);
        put16(f + 14, 7);
        feed(st, f, len + 4, now += MS);
    }
    /* a flood of distinct flows, sources and MACs: fills every table */
    for (uint32_t i = 0; i < 70000; i++) {
        uint8_t f[PKT_MAX];
        struct pkt_spec s = spec(i & 1 ? NF_IPPROTO_UDP : NF_IPPROTO_TCP, ip4(11, (i >> 16) & 255, (i >> 8) & 255, i & 255),
                                 ip4(12, 0, (i >> 8) & 255, i & 255), (uint16_t)(1024 + i), (uint16_t)(i % 1000));
        s.tcp_flags = NF_TCP_SYN;
        s.src_mac[3] = (uint8_t)(i >> 16), s.src_mac[4] = (uint8_t)(i >> 8), s.src_mac[5] = (uint8_t)i;
        feed(st, f, build(f, &s), now += 1000);
    }
    /* time running backwards must not break anything */
    feed(st, frames[0], lens[0], 0);
    feed(st, frames[1], lens[1], now - 5 * SEC);

    if (nf_state_digest) {
        uint64_t acc = 14695981039346656037ull;
        nf_state_digest(st, digest_sink, &acc);
    }
    if (nf_fini)
        nf_fini();
    free(st);
    printf("robust: %llu packets, %u bad verdicts\n", (unsigned long long)packets_run, bad_verdicts);
    return bad_verdicts ? 1 : 0;
}
