/*
 * harness.c — callgrind driver for the reducer's measurements: loads a chain
 * of nf.h shared objects, initialises each with its key=value config, then
 * runs every packet through the chain inside nfc_bench_loop() (the only
 * function callgrind collects, via --toggle-collect), routing by verdict the
 * way the consolidated nf_process does.
 *
 * usage: harness PACKETS_FILE ROUNDS SO [key=value ...] [-- SO [key=value ...]] ...
 * PACKETS_FILE: repeated (u32 little-endian length, frame bytes).
 * Prints the packet count and `elapsed_ns=N`, the wall time of the loop (the
 * bench runs it natively, interleaving variants, for throughput ratios).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nf.h"

#define MAX_NFS 8
#define MAX_KV 256

struct loaded {
    int32_t (*process)(struct nf_ctx *, struct nf_packet *);
    void *state;
};

static struct loaded nfs[MAX_NFS];
static int n_nfs;

__attribute__((noinline)) uint64_t nfc_bench_loop(uint8_t **frames, uint32_t *lens, uint32_t n, uint32_t rounds, uint8_t *buf)
{
    uint64_t forwarded = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        for (uint32_t i = 0; i < n; i++) {
            struct nf_packet pkt;
            int32_t v = 0;
            memcpy(buf, frames[i], lens[i]);
            pkt.data = buf;
            pkt.len = lens[i];
            pkt.cap = 2048;
            pkt.in_port = 0;
            pkt._reserved = 0;
            for (int k = 0; k < n_nfs; k++) {
                struct nf_ctx ctx = {nfs[k].state, (uint64_t)i * 1000, 0, 1};
                v = nfs[k].process(&ctx, &pkt);
                if (v < 0)
                    break;
                pkt.in_port = (uint32_t)v;
            }
            forwarded += v >= 0;
        }
    }
    return forwarded;
}

int main(int argc, char **argv)
{
    FILE *f;
    uint8_t **frames = 0;
    uint32_t *lens = 0, n = 0, cap = 0, len, rounds;
    int a = 3;
    if (argc < 4) {
        fprintf(stderr, "usage: harness PACKETS ROUNDS SO [k=v...] [-- SO ...]\n");
        return 2;
    }
    rounds = (uint32_t)atoi(argv[2]);
    while (a < argc && n_nfs < MAX_NFS) {
        struct nf_kv kv[MAX_KV];
        struct nf_config cfg = {kv, 0};
        char err[256] = {0};
        void *h = dlopen(argv[a], RTLD_NOW | RTLD_LOCAL);
        size_t (*size)(void);
        void (*sinit)(void *);
        int (*init)(const struct nf_config *, char *, size_t);
        if (!h) {
            fprintf(stderr, "dlopen %s: %s\n", argv[a], dlerror());
            return 1;
        }
        a++;
        for (; a < argc && strcmp(argv[a], "--") != 0 && cfg.n_items < MAX_KV; a++) {
            char *eq = strchr(argv[a], '=');
            if (!eq)
                continue;
            *eq = 0;
            kv[cfg.n_items].key = argv[a];
            kv[cfg.n_items].value = eq + 1;
            cfg.n_items++;
        }
        if (a < argc)
            a++;
        init = (int (*)(const struct nf_config *, char *, size_t))dlsym(h, "nf_init");
        size = (size_t(*)(void))dlsym(h, "nf_state_size");
        sinit = (void (*)(void *))dlsym(h, "nf_state_init");
        nfs[n_nfs].process = (int32_t(*)(struct nf_ctx *, struct nf_packet *))dlsym(h, "nf_process");
        if (!init || !size || !nfs[n_nfs].process || init(&cfg, err, sizeof err)) {
            fprintf(stderr, "init failed: %s\n", err);
            return 1;
        }
        nfs[n_nfs].state = calloc(1, size() + 64);
        if (sinit)
            sinit(nfs[n_nfs].state);
        n_nfs++;
    }
    f = fopen(argv[1], "rb");
    if (!f)
        return 1;
    while (fread(&len, 4, 1, f) == 1) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1024;
            frames = realloc(frames, cap * sizeof *frames);
            lens = realloc(lens, cap * sizeof *lens);
        }
        frames[n] = malloc(len ? len : 1);
        if (len && fread(frames[n], 1, len, f) != len)
            return 1;
        lens[n++] = len;
    }
    fclose(f);
    {
        uint8_t *buf = calloc(1, 2048);
        struct timespec t0, t1;
        uint64_t fw;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        fw = nfc_bench_loop(frames, lens, n, rounds, buf);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("%u packets x %u rounds, %llu forwarded\n", n, rounds, (unsigned long long)fw);
        printf("elapsed_ns=%llu\n",
               (unsigned long long)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)));
    }
    return 0;
}
