/* A cluster file's element and attribute names against its schema
 * (docs/cluster.xsd, built in): an unknown one exits 2 with FILE:LINE and
 * the nearest known name (names.c). */
#ifndef ISLAND_CLUSTER_NAMES_H
#define ISLAND_CLUSTER_NAMES_H

#include <libxml/tree.h>

void cluster_check_names(const char *file, xmlNodePtr root);

#endif
