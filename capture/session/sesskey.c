/*
 * The shared key of a session across hosts (--session HOST:PORT). Whoever
 * knows the key may join; the coordinator proves it knows the key too, so
 * that an agent does not feed its node's progress to an impostor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "sesskey.h"
#include "util.h"

#include <dlfcn.h>
#include <pthread.h>

#ifndef CRYPTO_SONAME
#define CRYPTO_SONAME "libcrypto.so.3"
#endif

/* libcrypto, opened by sessions across hosts alone: linked at build time
 * its relocations cost every capture's start, few of which need it */
static struct {
	typeof(HMAC) *hmac;
	typeof(EVP_sha256) *sha256;
	typeof(CRYPTO_memcmp) *memcmp;
} crypto;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static char crypto_failed[300];

static void crypto_open(void)
{
	void *h = dlopen(CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(crypto_failed, sizeof(crypto_failed), "%s", dlerror());
		return;
	}
	*(void **)&crypto.hmac = dlsym(h, "HMAC");
	*(void **)&crypto.sha256 = dlsym(h, "EVP_sha256");
	*(void **)&crypto.memcmp = dlsym(h, "CRYPTO_memcmp");
	if (!crypto.hmac || !crypto.sha256 || !crypto.memcmp)
		snprintf(crypto_failed, sizeof(crypto_failed),
			 "%s lacks HMAC, EVP_sha256 or CRYPTO_memcmp", CRYPTO_SONAME);
}

static void crypto_need(void)
{
	pthread_once(&crypto_once, crypto_open);
	if (crypto_failed[0])
		die(2, "--session: the session key needs libcrypto: %s", crypto_failed);
}

const char *sesskey_default_path(void)
{
	static char path[4096];
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		snprintf(path, sizeof(path), "%s/island/session.key", xdg);
	else if (home && home[0] == '/')
		snprintf(path, sizeof(path), "%s/.config/island/session.key", home);
	else
		die(2, "--session: no HOME for the session key: give --key-file");
	return path;
}

void sesskey_random(uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(buf + got, n - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die(2, "getrandom:");
		got += (size_t)r;
	}
}

void sesskey_hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly 2N hex digits (sscanf's %2x took a sign, blanks and one digit
 * before another character: "0[" was 00, found by the session_auth
 * fuzzer), then the end, a line end or a blank. */
int sesskey_unhex(const char *hex, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexdigit(hex[2 * i]), lo = hi < 0 ? -1 : hexdigit(hex[2 * i + 1]);
		if (lo < 0)
			return -1;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return hex[2 * n] && hex[2 * n] != '\n' && hex[2 * n] != ' ' ? -1 : 0;
}

/* mkdir -p with mode 0700 for the components we make */
static void make_dirs(const char *file)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", file);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			die(2, "%s:", dir);
		*p = '/';
	}
}

/* A new key, written whole before anyone reads it: into a temporary name
 * created O_EXCL, then linked to FILE (fails if another node won). */
static void create_key(const char *file)
{
	char tmp[4200], hex[2 * SESSKEY_LEN + 2];
	uint8_t key[SESSKEY_LEN];

	make_dirs(file);
	sesskey_random(key, sizeof(key));
	sesskey_hex(key, sizeof(key), hex);
	strcat(hex, "\n");
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", file, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		die(2, "%s:", tmp);
	if (write(fd, hex, strlen(hex)) != (ssize_t)strlen(hex) || fsync(fd) < 0 || close(fd) < 0) {
		unlink(tmp);
		die(2, "%s:", tmp);
	}
	if (link(tmp, file) < 0 && errno != EEXIST) {
		unlink(tmp);
		die(2, "%s:", file);
	}
	unlink(tmp);
}

int sesskey_load(const char *file, int create, uint8_t key[SESSKEY_LEN])
{
	char buf[256];
	struct stat st;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		create_key(file);
		fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0 && errno == ENOENT && !create)
		return -1;
	if (fd < 0)
		die(2, "key file %s:", file);
	if (fstat(fd, &st) < 0)
		die(2, "key file %s:", file);
	if (!S_ISREG(st.st_mode))
		die(2, "key file %s: not a regular file", file);
	if (st.st_uid != geteuid())
		die(2, "key file %s: owned by uid %u, not by us (%u)", file,
		    (unsigned)st.st_uid, (unsigned)geteuid());
	if ((st.st_mode & 07777) != 0600)
		die(2, "key file %s: mode %04o, must be 0600", file, (unsigned)(st.st_mode & 07777));
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		die(2, "key file %s:", file);
	buf[n] = 0;
	if (sesskey_unhex(buf, key, SESSKEY_LEN) < 0)
		die(2, "key file %s:1: not %d hex digits", file, 2 * SESSKEY_LEN);
	return 0;
}

void sesskey_mac(const uint8_t key[SESSKEY_LEN], const char *role,
		 const uint8_t nonce[SESSKEY_NONCE], const char *name,
		 uint8_t mac[SESSKEY_MAC])
{
	uint8_t msg[16 + SESSKEY_NONCE + 64];
	size_t rl = strlen(role) + 1, nl = strnlen(name, 63);
	unsigned int ml = SESSKEY_MAC;

	memcpy(msg, role, rl);                  /* with its NUL: unambiguous */
	memcpy(msg + rl, nonce, SESSKEY_NONCE);
	memcpy(msg + rl + SESSKEY_NONCE, name, nl);
	crypto_need();
	if (!crypto.hmac(crypto.sha256(), key, SESSKEY_LEN, msg, rl + SESSKEY_NONCE + nl, mac, &ml))
		die(2, "HMAC-SHA256 failed");
}

int sesskey_check(const char *hex, const uint8_t mac[SESSKEY_MAC])
{
	uint8_t got[SESSKEY_MAC];

	crypto_need();
	return sesskey_unhex(hex, got, sizeof(got)) == 0 &&
	       crypto.memcmp(got, mac, SESSKEY_MAC) == 0;
}
