/* The capture's reading of trace/calls.def: each call's resource class,
 * the amount its result or arguments say, and its effect on the
 * descriptor table, by call id (capture/spool/callinfo.c). */
#ifndef ISLAND_CAPTURE_CALLINFO_H
#define ISLAND_CAPTURE_CALLINFO_H

enum amount { AMT_NONE, AMT_RET, AMT_ITEMS, AMT_CHAR, AMT_A2, AMT_A1 };
enum effect { EFF_NONE, EFF_USE, EFF_OPEN, EFF_CLOSE, EFF_DUP, EFF_FCNTL,
	      EFF_SOCKET, EFF_PAIR, EFF_ACCEPT, EFF_CONNECT, EFF_BIND,
	      EFF_PATH, EFF_REOPEN, EFF_CWD, EFF_FDOPEN, EFF_MAP, EFF_UNMAP,
	      EFF_MSYNC, EFF_POPEN, EFF_ANON };

struct callinfo {
	const char *api;
	int res, amount, effect;
};
extern const struct callinfo call_info[];

#endif
