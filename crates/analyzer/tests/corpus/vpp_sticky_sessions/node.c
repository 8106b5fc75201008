/*
 * sticky: a VPP plugin node that pins every IPv4 TCP/UDP session to a
 * next node chosen at session creation. Sessions live in a bihash keyed by
 * the 5-tuple and point into a per-thread session pool.
 */
#include <vlib/vlib.h>
#include <vnet/vnet.h>
#include <vnet/ip/ip4_packet.h>
#include <vnet/udp/udp_packet.h>
#include <vppinfra/bihash_16_8.h>
#include <sticky/sticky.h>

typedef struct
{
  u32 next_index;
  u32 sw_if_index;
  f64 created;
} sticky_session_t;

typedef struct
{
  clib_bihash_16_8_t session_table;
  sticky_session_t *sessions;
  u32 n_next;
} sticky_main_t;

sticky_main_t sticky_main;

static_always_inline void
sticky_make_key (clib_bihash_kv_16_8_t * kv, ip4_header_t * ip0)
{
  udp_header_t *udp0 = ip4_next_header (ip0);
  kv->key[0] = (u64) ip0->src_address.as_u32 << 32 | ip0->dst_address.as_u32;
  kv->key[1] = (u64) udp0->src_port << 32 | (u64) udp0->dst_port << 16 | ip0->protocol;
  kv->value = ~0ULL;
}

VLIB_NODE_FN (sticky_node) (vlib_main_t * vm, vlib_node_runtime_t * node,
			    vlib_frame_t * frame)
{
  sticky_main_t *sm = &sticky_main;
  u32 n_left_from, *from, *to_next;
  u32 next_index = node->cached_next_index;

  from = vlib_frame_vector_args (frame);
  n_left_from = frame->n_vectors;

  while (n_left_from > 0)
    {
      u32 n_left_to_next;
      vlib_get_next_frame (vm, node, next_index, to_next, n_left_to_next);
      while (n_left_from > 0 && n_left_to_next > 0)
	{
	  u32 bi0 = from[0];
	  vlib_buffer_t *b0 = vlib_get_buffer (vm, bi0);
	  ip4_header_t *ip0 = vlib_buffer_get_current (b0);
	  clib_bihash_kv_16_8_t kv, result;
	  sticky_session_t *s;
	  u32 next0;

	  sticky_make_key (&kv, ip0);
	  if (clib_bihash_search_16_8 (&sm->session_table, &kv, &result) == 0)
	    {
	      s = pool_elt_at_index (sm->sessions, result.value);
	    }
	  else
	    {
	      pool_get (sm->sessions, s);
	      s->next_index = (kv.key[0] + kv.key[1]) % sm->n_next;
	      s->sw_if_index = vnet_buffer (b0)->sw_if_index[VLIB_RX];
	      s->created = vlib_time_now (vm);
	      kv.value = s - sm->sessions;
	      clib_bihash_add_del_16_8 (&sm->session_table, &kv, 1 /* is_add */ );
	    }
	  next0 = s->next_index;

	  to_next[0] = bi0;
	  from += 1;
	  to_next += 1;
	  n_left_from -= 1;
	  n_left_to_next -= 1;
	  vlib_validate_buffer_enqueue_x1 (vm, node, next_index, to_next,
					   n_left_to_next, bi0, next0);
	}
      vlib_put_next_frame (vm, node, next_index, n_left_to_next);
    }
  return frame->n_vectors;
}

VLIB_REGISTER_NODE (sticky_node) = {
  .name = "sticky",
  .vector_size = sizeof (u32),
  .type = VLIB_NODE_TYPE_INTERNAL,
};
