/*
 * nfc's model of the Linux kernel's doubly linked lists (linux/list.h,
 * linux/rculist.h) for the static analyzer, written for nfc from the API's
 * documented behaviour, not copied from the kernel.
 *
 * Out-of-tree kernel code (netfilter match and target modules, for one) is
 * analysed without the kernel's internal headers. Its hash tables and LRU
 * lists are kernel lists, walked by macros the analyzer would otherwise see
 * as unknown calls followed by a block. The model keeps what matters to the
 * analysis: a walk loads each entry through the previous one's link, the
 * entry is the node's container (its offset does not matter here), adding
 * and deleting rewrite links. RCU variants behave the same for one thread.
 */
#ifndef NFC_MODEL_LINUX_LIST_H
#define NFC_MODEL_LINUX_LIST_H

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
#define HLIST_HEAD_INIT { 0 }

#define container_of(ptr, type, member) ((type *)(ptr))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_first_entry_or_null(ptr, type, member) \
	((ptr)->next != (ptr) ? list_first_entry(ptr, type, member) : 0)
#define list_next_entry(pos, member) ((void *)((pos)->member.next))
#define list_prev_entry(pos, member) ((void *)((pos)->member.prev))
#define hlist_entry(ptr, type, member) container_of(ptr, type, member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)
#define list_for_each_safe(pos, n, head) \
	for (pos = (head)->next, n = pos->next; pos != (head); pos = n, n = pos->next)
#define list_for_each_entry(pos, head, member) \
	for (pos = (void *)((head)->next); &pos->member != (head); \
	     pos = (void *)(pos->member.next))
#define list_for_each_entry_reverse(pos, head, member) \
	for (pos = (void *)((head)->prev); &pos->member != (head); \
	     pos = (void *)(pos->member.prev))
#define list_for_each_entry_safe(pos, n, head, member) \
	for (pos = (void *)((head)->next), n = (void *)(pos->member.next); \
	     &pos->member != (head); pos = n, n = (void *)(n->member.next))
#define list_for_each_entry_rcu(pos, head, member, ...) \
	list_for_each_entry(pos, head, member)
#define hlist_for_each_entry(pos, head, member) \
	for (pos = (void *)((head)->first); pos; pos = (void *)(pos->member.next))
#define hlist_for_each_entry_safe(pos, n, head, member) \
	for (pos = (void *)((head)->first); pos && ((n = (void *)(pos->member.next)), 1); \
	     pos = n)
#define hlist_for_each_entry_rcu(pos, head, member, ...) \
	hlist_for_each_entry(pos, head, member)

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline int list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	prev->next = next;
}

static inline void list_del(struct list_head *entry)
{
	__list_del(entry->prev, entry->next);
	entry->next = 0;
	entry->prev = 0;
}

static inline void list_del_init(struct list_head *entry)
{
	__list_del(entry->prev, entry->next);
	INIT_LIST_HEAD(entry);
}

static inline void list_move(struct list_head *list, struct list_head *head)
{
	__list_del(list->prev, list->next);
	list_add(list, head);
}

static inline void list_move_tail(struct list_head *list, struct list_head *head)
{
	__list_del(list->prev, list->next);
	list_add_tail(list, head);
}

static inline void INIT_HLIST_HEAD(struct hlist_head *h)
{
	h->first = 0;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;
	n->next = first;
	if (first)
		first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	*n->pprev = next;
	if (next)
		next->pprev = n->pprev;
}

#define list_add_rcu(new, head) list_add(new, head)
#define list_add_tail_rcu(new, head) list_add_tail(new, head)
#define list_del_rcu(entry) list_del(entry)
#define hlist_add_head_rcu(n, h) hlist_add_head(n, h)
#define hlist_del_rcu(n) hlist_del(n)
#define hlist_del_init(n) hlist_del(n)
#define hlist_del_init_rcu(n) hlist_del(n)

#endif
