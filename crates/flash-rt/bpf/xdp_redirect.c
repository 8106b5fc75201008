/*
 * xdp_redirect.c — flash-rt's XDP program. The monitor attaches one instance
 * to every interface that feeds an NF and fills its XSKMAP with the AF_XDP
 * socket bound to each queue; frames arriving on a queue that has a socket go
 * to it (copy or zero-copy, as the socket was bound), everything else goes on
 * to the kernel stack (XDP_PASS), so the interface stays usable for other
 * traffic, as in FLASH.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, BPF_MAP_TYPE_XSKMAP);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, __u32);
} flash_xsks SEC(".maps");

SEC("xdp")
int flash_redirect(struct xdp_md *ctx)
{
    return bpf_redirect_map(&flash_xsks, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
