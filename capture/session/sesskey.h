/* The shared key of a session across hosts: loaded from (or created into)
 * a 0600 file of the user's, and the HMAC-SHA256 proofs built on it. */
#ifndef ISLAND_SESSKEY_H
#define ISLAND_SESSKEY_H

#include <stddef.h>
#include <stdint.h>

#define SESSKEY_LEN   32             /* bytes of key */
#define SESSKEY_NONCE 32             /* bytes of a challenge */
#define SESSKEY_MAC   32             /* bytes of an HMAC-SHA256 */

/* The default key file: $XDG_CONFIG_HOME/island/session.key, else
 * $HOME/.config/island/session.key. Static storage. */
const char *sesskey_default_path(void);

/* Load the key of FILE into KEY: a regular file owned by us, mode 0600,
 * 64 hex digits. With CREATE and no such file, make one (directory
 * created 0700) with a fresh key; without, -1 when there is none. Dies
 * with a one-line message on any other error. */
int sesskey_load(const char *file, int create, uint8_t key[SESSKEY_LEN]);

/* HMAC-SHA256(key, role || nonce || name) into MAC: ROLE ("agent" or
 * "coord") keeps one side's proof from answering the other's challenge. */
void sesskey_mac(const uint8_t key[SESSKEY_LEN], const char *role,
		 const uint8_t nonce[SESSKEY_NONCE], const char *name,
		 uint8_t mac[SESSKEY_MAC]);

/* Constant-time comparison of a MAC given in hex with the expected one. */
int sesskey_check(const char *hex, const uint8_t mac[SESSKEY_MAC]);

/* Random bytes from getrandom(); dies if the kernel gives none. */
void sesskey_random(uint8_t *buf, size_t n);

/* N bytes as 2N hex digits and a NUL; from hex: 0 when exactly N bytes. */
void sesskey_hex(const uint8_t *b, size_t n, char *out);
int sesskey_unhex(const char *hex, uint8_t *b, size_t n);

#endif
