/* The session handshake (capture/session/coordinator.c, compiled in: its parsers
 * are static), both sides, fed the input:
 *  - the coordinator: each line of the input as a client's first line
 *    (authenticate(): AUTH name anonce mac); and a well-formed AUTH
 *    built from the input's first line as the name (up to 63 bytes, as
 *    much as the MAC covers), with the right MAC: accepted exactly when
 *    that name is one token;
 *  - the agent: the input as what the coordinator sends it (handshake():
 *    CHAL cnonce, then OK mac), through a socket pair;
 *  - the hex of nonces and MACs (sesskey_unhex()): what it accepts is 64
 *    hex digits that sesskey_hex() gives back, nothing else.
 * A property that does not hold aborts, as a crash would. */
#include "../../capture/session/coordinator.c"
#include "fuzz.h"

#include <ctype.h>
#include <strings.h>

static const uint8_t fkey[SESSKEY_LEN] = "island fuzz key, 32 bytes long.";
static int devnull = -1;
static struct client cl[NSLOTS];      /* static: 600 KB, too much to calloc */

/* The coordinator's table: no one there but client 0, on /dev/null. */
static struct client *clients(uint8_t nonce)
{
	for (int i = 0; i < NSLOTS; i++) {
		cl[i].fd = -1;
		cl[i].authed = 0;
	}
	cl[0].fd = devnull;
	cl[0].name[0] = 0;
	memset(cl[0].nonce, nonce, sizeof(cl[0].nonce));
	return cl;
}

static void unhex_exact(const char *s)
{
	uint8_t b[SESSKEY_NONCE];
	char back[2 * SESSKEY_NONCE + 1];

	if (sesskey_unhex(s, b, sizeof(b)) < 0)
		return;
	sesskey_hex(b, sizeof(b), back);
	if (strncasecmp(back, s, 2 * sizeof(b)))
		abort();
}

static void coordinator_side(char *lines)
{
	struct client *c = clients(7);
	char *p, *nl;

	for (p = lines; *p; p = nl + 1) {
		char line[512];
		nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = 0;
		c[0].authed = 0;
		authenticate(c, 0, line, fkey);
		unhex_exact(line);
		if (l > 5)
			unhex_exact(line + 5);
		if (!nl)
			break;
	}
}

/* A right AUTH for NAME: accepted exactly when NAME is one token. */
static void auth_of(const char *name)
{
	struct client *c = clients(9);
	uint8_t anonce[SESSKEY_NONCE], mac[SESSKEY_MAC];
	char an[2 * SESSKEY_NONCE + 1], mh[2 * SESSKEY_MAC + 1], line[512];
	size_t nl = strlen(name);
	int token = nl >= 1;

	if (nl > 63)                  /* the MAC covers 63 bytes of a name */
		return;

	for (size_t i = 0; i < nl; i++)
		token &= !isspace((unsigned char)name[i]);
	memset(anonce, 3, sizeof(anonce));
	sesskey_hex(anonce, sizeof(anonce), an);
	sesskey_mac(fkey, "agent", c[0].nonce, name, mac);
	sesskey_hex(mac, sizeof(mac), mh);
	if (snprintf(line, sizeof(line), "AUTH %s %s %s\n", name, an, mh) >= (int)sizeof(line))
		return;
	int ok = authenticate(c, 0, line, fkey) == 0;
	if (ok != token || (ok && strcmp(c[0].name, name)))
		abort();
}

static void agent_side(const uint8_t *data, size_t size)
{
	struct agent ag;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	memset(&ag, 0, sizeof(ag));
	memcpy(ag.key, fkey, sizeof(fkey));
	if (size > 4096)              /* more than two lines of 256 is never read */
		size = 4096;
	if (size && write(sv[1], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[1], SHUT_WR);
	ag.fd = sv[0];
	handshake(&ag, "node");
	if (ag.fd >= 0)
		close(ag.fd);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *nl;

	fuzz_dir();
	if (devnull < 0 && (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;
	coordinator_side(buf);
	if ((nl = strchr(buf, '\n')))
		*nl = 0;
	auth_of(buf);
	agent_side(data, size);
	free(buf);
	return 0;
}
