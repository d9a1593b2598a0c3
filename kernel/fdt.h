/*
 * kernel/fdt.h: read-only access to a flattened device tree.
 *
 * fdt_init() checks the blob handed over by the firmware; nodes are named
 * by their offset in the structure block. Only the boot hart calls these,
 * before other harts start. Nothing here allocates.
 */
#pragma once

#include <kernel/compiler.h>

int fdt_init(const void *blob);
int fdt_path_offset(const char *path);
int fdt_next_compatible(int after, const char *compatible);
const void *fdt_getprop(int node, const char *name, int *len);
const char *fdt_node_name(int node);
int fdt_first_child(int node);
int fdt_next_sibling(int node);
/* The node @node is a child of, or -1 for the root. */
int fdt_parent(int node);
bool fdt_reg(int node, int index, uint64_t *addr, uint64_t *size);
bool fdt_read_u32(int node, const char *name, uint32_t *val);
bool fdt_status_okay(int node);
int fdt_node_by_phandle(uint32_t phandle);
uint32_t fdt_cell(const void *prop, int index);

#define fdt_for_each_child(child, node)                 \
	for (child = fdt_first_child(node); child >= 0; \
	     child = fdt_next_sibling(child))
