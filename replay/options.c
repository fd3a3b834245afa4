/* The replay's options, as every step reads them: their defaults here,
 * what the command line says set by replay_main.c. */
#include "replay.h"

struct opts opt = { .mode = MODE_CAUSAL, .compute = COMP_SPIN, .speed = 1.0, .stall = 5.0 };
