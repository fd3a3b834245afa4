/* A library an application preloads itself (see robust.c). */
int robust_mark(void);
int robust_mark(void)
{
	return 1;
}
