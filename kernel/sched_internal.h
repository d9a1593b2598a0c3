/*
 * kernel/sched_internal.h: what kernel/sched.c and kernel/task.c share,
 * and nothing else includes.
 */
#pragma once

#include <kernel/sched.h>

/* kernel/task.c */
struct task *task_alloc(const char *name, int (*fn)(void *), void *arg);
/* Give @t its tid and put it on the list of all tasks. */
void task_register(struct task *t);
/* Drop the task's own reference after its last switch; wakes joiners. */
void task_put_own(struct task *t);

/* kernel/sched.c: where a new task's first switch lands. */
__noreturn void task_entry(void);
