#include <stdint.h>
struct rc4 { uint8_t S[256]; uint8_t i, j; };
void rc4_crypt(struct rc4 *s, uint8_t *buf, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        s->i++;
        s->j += s->S[s->i];
        uint8_t t = s->S[s->i]; s->S[s->i] = s->S[s->j]; s->S[s->j] = t;
        buf[k] ^= s->S[(uint8_t)(s->S[s->i] + s->S[s->j])];
    }
}
