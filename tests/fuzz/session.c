/* The session protocol as an agent receives it from the coordinator
 * (capture/session/coordinator.c's on_line(), static: the file is compiled in
 * here): lines of STATE, GONE and DEP into a session's shared state. The
 * harness splits the input into lines as agent_run() does. The protocol
 * is being changed (authenticated sessions, issue 13 item 5): this fuzzes
 * the parser of today's messages. */
#include "../../capture/session/coordinator.c"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct session *s;
	struct agent ag;
	char *buf = malloc(size + 1), *p, *nl;

	if (!s)
		s = calloc(1, sizeof(*s));
	memset(s, 0, sizeof(*s));
	memset(&ag, 0, sizeof(ag));
	ag.s = s;
	ag.idx = 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = 0;
		on_line(&ag, p);
	}
	on_line(&ag, p);
	free(buf);
	return 0;
}
