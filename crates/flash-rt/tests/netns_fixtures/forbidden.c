/*
 * forbidden.c — test NF for the NF host's seccomp sandbox: on every frame
 * it tries three system calls no packet path needs — socket(), openat()
 * of /etc/hostname, execve() of /bin/true — writes each call's return
 * value and errno into the frame (six big-endian int32 after the 4-byte
 * sequence number at offset 14) and forwards it to port 0. Under the
 * sandbox every call returns -1 with EPERM and the frame still comes out.
 * Written against nf.h ABI v1.
 */
#include "nf.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct nf_info INFO = {NF_ABI_VERSION, "forbidden", 1};

const struct nf_info *nf_describe(void) { return &INFO; }

int nf_init(const struct nf_config *cfg, char *err, size_t err_len)
{
    (void)cfg;
    (void)err;
    (void)err_len;
    return 0;
}

size_t nf_state_size(void) { return 0; }

static void put32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24);
    p[1] = (uint8_t)(u >> 16);
    p[2] = (uint8_t)(u >> 8);
    p[3] = (uint8_t)u;
}

int32_t nf_process(struct nf_ctx *ctx, struct nf_packet *pkt)
{
    (void)ctx;
    if (pkt->len < 18 + 24)
        return NF_DROP;
    char *argv[] = {"/bin/true", 0};
    char *envp[] = {0};
    long r[3];
    int e[3];
    errno = 0;
    r[0] = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
    e[0] = errno;
    errno = 0;
    r[1] = syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
    e[1] = errno;
    errno = 0;
    r[2] = syscall(SYS_execve, "/bin/true", argv, envp);
    e[2] = errno;
    for (int i = 0; i < 3; i++) {
        if (r[i] >= 0)
            close((int)r[i]);
        put32(pkt->data + 18 + 8 * i, (int32_t)r[i]);
        put32(pkt->data + 22 + 8 * i, e[i]);
    }
    return NF_PORT(0);
}
