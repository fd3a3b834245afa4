/* The call table as the capture reads it (trace/calls.def), and what a
 * record's call says by itself: its name, its amount, its second path,
 * the source of a copy. */
#include "capture.h"
#include "capture/spool/callinfo.h"
#include "util.h"

const struct callinfo call_info[] = {
#define CALL(id, api, res, amount, effect) \
	[C_##id] = { api, RES_##res, AMT_##amount, EFF_##effect },
#include "trace/calls.def"
#undef CALL
};

const char *const res_names[] = {
	"fileread", "filewrite", "filemeta", "netsend", "netrecv", "netmeta",
	"sleep", "wait", "proc", "sys",
};

const char *call_name(int call)
{
	return call >= 0 && call < C_NCALLS ? call_info[call].api : "?";
}

int call_has_amount(int call)
{
	return call >= 0 && call < C_NCALLS && call_info[call].amount != AMT_NONE;
}

int64_t amount_of(const struct rec *r)
{
	switch (call_info[r->call].amount) {
	case AMT_RET:   return r->ret > 0 ? r->ret : 0;
	case AMT_ITEMS: return r->ret > 0 ? r->ret * r->a2 : 0;
	case AMT_CHAR:  return r->ret >= 0 ? 1 : 0;
	case AMT_A2:    return r->ret >= 0 && r->a2 > 0 ? r->a2 : 0;
	case AMT_A1:    return r->ret >= 0 ? r->a1 : 0;
	}
	return 0;
}

/* Calls whose payload holds a second path, resolved against a1. */
int two_paths(int call)
{
	return call == C_RENAME || call == C_RENAMEAT || call == C_RENAMEAT2 ||
	       call == C_LINK || call == C_LINKAT;
}

int copy_src_fd(const struct rec *r)
{
	return (int)(int32_t)(uint32_t)r->a2;
}

int copy_src_obj(const struct rec *r)
{
	return (int)((uint64_t)r->a2 >> 32);
}

/* The same kind of call at two levels (write and write, open and openat). */
int call_kind_equal(int a, int b)
{
	if (a < 0 || a >= C_NCALLS || b < 0 || b >= C_NCALLS)
		return 0;
	const struct callinfo *x = &call_info[a], *y = &call_info[b];

	return x->res == y->res && x->amount == y->amount && x->effect == y->effect;
}
