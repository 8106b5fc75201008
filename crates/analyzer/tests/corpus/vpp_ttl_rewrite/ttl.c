/*
 * ttlclamp: clamps the IPv4 TTL to a configured maximum and fixes the
 * header checksum incrementally. No per-flow state.
 */
#include <vlib/vlib.h>
#include <vnet/vnet.h>
#include <vnet/ip/ip4_packet.h>

typedef struct
{
  u8 max_ttl;
  u32 clamped;
} ttlclamp_main_t;

ttlclamp_main_t ttlclamp_main;

static clib_error_t *
ttlclamp_config (vlib_main_t * vm, unformat_input_t * input)
{
  ttlclamp_main_t *tm = &ttlclamp_main;
  tm->max_ttl = 64;
  while (unformat_check_input (input) != UNFORMAT_END_OF_INPUT)
    {
      if (!unformat (input, "max-ttl %u", &tm->max_ttl))
	return clib_error_return (0, "unknown input");
    }
  return 0;
}

VLIB_NODE_FN (ttlclamp_node) (vlib_main_t * vm, vlib_node_runtime_t * node, vlib_frame_t * frame)
{
  ttlclamp_main_t *tm = &ttlclamp_main;
  u32 n_left = frame->n_vectors;
  u32 *from = vlib_frame_vector_args (frame);
  vlib_buffer_t *bufs[VLIB_FRAME_SIZE], **b = bufs;
  u16 nexts[VLIB_FRAME_SIZE], *next = nexts;

  vlib_get_buffers (vm, from, bufs, n_left);
  while (n_left > 0)
    {
      ip4_header_t *ip0 = vlib_buffer_get_current (b[0]);
      if (ip0->ttl > tm->max_ttl)
	{
	  ip_csum_t sum = ip0->checksum;
	  sum = ip_csum_update (sum, ip0->ttl, tm->max_ttl, ip4_header_t, ttl);
	  ip0->checksum = ip_csum_fold (sum);
	  ip0->ttl = tm->max_ttl;
	  tm->clamped++;
	}
      next[0] = 0;
      b += 1;
      next += 1;
      n_left -= 1;
    }
  vlib_buffer_enqueue_to_next (vm, node, from, nexts, frame->n_vectors);
  return frame->n_vectors;
}

VLIB_CONFIG_FUNCTION (ttlclamp_config, "ttlclamp");
