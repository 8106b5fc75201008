/*
 * fuzz_nf.c — a generic libFuzzer harness for any NF. Compiled once per NF
 * with `clang-19 -fsanitize=fuzzer,address,undefined` together with the
 * NF's sources. LLVMFuzzerInitialize calls nf_init with the config read
 * from the file named by NFC_FUZZ_CONFIG (one `key=value` per line: the
 * NF's default config, flattened) and allocates one state instance.
 *
 * Each input is first processed as one whole packet, then split into
 * records `[port] [len_hi] [len_lo] [len bytes]` processed in order, so a
 * single input drives a sequence of packets through the same state. The
 * state persists across inputs (to reach full tables and aged entries) and
 * is re-initialised every 4096 inputs. Every packet is copied into an
 * exactly-sized heap buffer so ASan sees any access past pkt->len; a
 * verdict outside [NF_DROP, n_ports) traps.
 */
#include "nf.h"
#include <stdio.h>
#include <stdlib.h>

#pragma weak nf_state_init

#define MAX_KV 8192

static struct nf_kv kv[MAX_KV];
static struct nf_config cfg = {kv, 0};
static void *state;
static size_t state_size;
static uint32_t n_ports;
static uint64_t clock_ns = 1000000000ull;
static uint64_t inputs;

static void reset_state(void)
{
    memset(state, 0, state_size ? state_size : 1);
    if (nf_state_init)
        nf_state_init(state);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *path = getenv("NFC_FUZZ_CONFIG");
    char line[4096], err[256] = "";
    FILE *f;
    (void)argc;
    (void)argv;
    if (path && (f = fopen(path, "r"))) {
        while (cfg.n_items < MAX_KV && fgets(line, sizeof line, f)) {
            char *eq = strchr(line, '='), *nl = strchr(line, '\n');
            if (nl)
                *nl = 0;
            if (!eq)
                continue;
            *eq = 0;
            kv[cfg.n_items].key = strdup(line);
            kv[cfg.n_items].value = strdup(eq + 1);
            cfg.n_items++;
        }
        fclose(f);
    }
    if (nf_init(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_nf: nf_init rejected the config: %s\n", err);
        exit(2);
    }
    n_ports = nf_describe()->n_ports;
    state_size = nf_state_size();
    state = malloc(state_size ? state_size : 1);
    if (!state)
        exit(2);
    reset_state();
    return 0;
}

static void one_packet(const uint8_t *bytes, size_t len, uint32_t port)
{
    uint8_t *buf = malloc(len ? len : 1);
    struct nf_packet pkt;
    struct nf_ctx ctx;
    int32_t verdict;
    if (!buf)
        abort();
    memcpy(buf, bytes, len);
    pkt.data = buf;
    pkt.len = (uint32_t)len;
    pkt.cap = (uint32_t)len;
    pkt.in_port = port;
    pkt._reserved = 0;
    clock_ns += 1000 + (len & 0xff) * 997; /* deterministic, mostly forward */
    ctx.state = state;
    ctx.now_ns = clock_ns;
    ctx.worker = 0;
    ctx.n_workers = 1;
    verdict = nf_process(&ctx, &pkt);
    if (verdict < NF_DROP || (verdict >= 0 && (uint32_t)verdict >= n_ports) || pkt.len > pkt.cap)
        __builtin_trap();
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    if (++inputs % 4096 == 0)
        reset_state();
    one_packet(data, size, (uint32_t)(size & 3));
    while (size - off >= 3) {
        uint32_t port = data[off] & 3;
        size_t len = (size_t)data[off + 1] << 8 | data[off + 2];
        off += 3;
        if (len > size - off)
            len = size - off;
        one_packet(data + off, len, port);
        off += len;
    }
    return 0;
}
