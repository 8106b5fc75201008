// hashtable.hh — a Click-like HashTable<K, V>: separate chaining with
// heap-allocated nodes linked by `_next` pointers (like Click's
// HashContainer), so lookups chase pointers. find_insert() returns the
// value slot, creating it if absent.
#ifndef NFC_CLICK_HASHTABLE_HH
#define NFC_CLICK_HASHTABLE_HH
#include <cstddef>
#include <cstdint>

namespace click {

template <typename K> inline size_t hashcode(const K &k) { return k.hashcode(); }
template <> inline size_t hashcode<uint32_t>(const uint32_t &k) { return static_cast<size_t>(k) * 0x9E3779B97F4A7C15ull; }

template <typename K, typename V> class HashTable {
    struct Node {
        K key;
        V value;
        Node *_next;
    };

  public:
    explicit HashTable(size_t nbuckets = 1024) : _nbuckets(nbuckets), _size(0) {
        _buckets = new Node *[_nbuckets]();
    }
    ~HashTable() {
        clear();
        delete[] _buckets;
    }
    HashTable(const HashTable &) = delete;
    HashTable &operator=(const HashTable &) = delete;

    V *find(const K &k) {
        for (Node *n = _buckets[bucket(k)]; n; n = n->_next)
            if (n->key == k)
                return &n->value;
        return nullptr;
    }
    V &find_insert(const K &k) {
        size_t b = bucket(k);
        for (Node *n = _buckets[b]; n; n = n->_next)
            if (n->key == k)
                return n->value;
        Node *n = new Node{k, V(), _buckets[b]};
        _buckets[b] = n;
        _size++;
        return n->value;
    }
    bool erase(const K &k) {
        for (Node **link = &_buckets[bucket(k)]; *link; link = &(*link)->_next)
            if ((*link)->key == k) {
                Node *dead = *link;
                *link = dead->_next;
                delete dead;
                _size--;
                return true;
            }
        return false;
    }
    void clear() {
        for (size_t b = 0; b < _nbuckets; b++)
            while (Node *n = _buckets[b]) {
                _buckets[b] = n->_next;
                delete n;
            }
        _size = 0;
    }
    size_t size() const { return _size; }

  private:
    size_t bucket(const K &k) const { return hashcode(k) % _nbuckets; }
    Node **_buckets;
    size_t _nbuckets;
    size_t _size;
};

} // namespace click
#endif
