/*
 * srcmeter: per-source packet/byte meter for IPv4, as a VPP feature node.
 * Sources are hashed into a fixed array of counters per worker.
 */
#include <vlib/vlib.h>
#include <vnet/vnet.h>
#include <vnet/ip/ip4_packet.h>
#include <vppinfra/xxhash.h>

#define SRCMETER_BUCKETS (1 << 16)

typedef struct
{
  u64 packets;
  u64 bytes;
  u32 addr;
  u32 pad;
} srcmeter_bucket_t;

typedef struct
{
  srcmeter_bucket_t buckets[SRCMETER_BUCKETS];
  u64 total;
} srcmeter_main_t;

srcmeter_main_t srcmeter_main;

static uword
srcmeter_inline (vlib_main_t * vm, vlib_node_runtime_t * node, vlib_frame_t * frame)
{
  srcmeter_main_t *mm = &srcmeter_main;
  u32 *from = vlib_frame_vector_args (frame);
  u32 n_left = frame->n_vectors;
  vlib_buffer_t *bufs[VLIB_FRAME_SIZE], **b = bufs;
  u16 nexts[VLIB_FRAME_SIZE], *next = nexts;

  vlib_get_buffers (vm, from, bufs, n_left);
  while (n_left > 0)
    {
      ip4_header_t *ip = vlib_buffer_get_current (b[0]);
      u32 src = clib_net_to_host_u32 (ip->src_address.as_u32);
      u32 idx = clib_xxhash (src) & (SRCMETER_BUCKETS - 1);
      srcmeter_bucket_t *bk = &mm->buckets[idx];
      bk->packets += 1;
      bk->bytes += vlib_buffer_length_in_chain (vm, b[0]);
      bk->addr = src;
      mm->total++;
      next[0] = 0;
      vnet_feature_next_u16 (&next[0], b[0]);
      b += 1;
      next += 1;
      n_left -= 1;
    }
  vlib_buffer_enqueue_to_next (vm, node, from, nexts, frame->n_vectors);
  return frame->n_vectors;
}

VLIB_NODE_FN (srcmeter_node) (vlib_main_t * vm, vlib_node_runtime_t * node, vlib_frame_t * frame)
{
  return srcmeter_inline (vm, node, frame);
}
