/*
 * kernel/lockdep.c: held-lock tracking and rank checks (see lockdep.h).
 *
 * The held-lock stack belongs to the running task and is only touched by
 * it, so it needs no lock. The table of reported class pairs is guarded by
 * report_lock, a leaf.
 */
#include <kernel/lockdep.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>

#define MAX_REPORTED 32

static DEFINE_SPINLOCK(report_lock);
static struct {
	const struct lock_class *held, *taken;
} reported[MAX_REPORTED];
static unsigned int nreported;
static unsigned long nreports;

static int rank_of(const struct lockdep_map *m)
{
	return m->class ? m->class->rank : LOCK_RANK_NONE;
}

static const char *class_name(const struct lockdep_map *m)
{
	return m->class ? m->class->name : m->name;
}

/* Record a pair once; true if it was new. */
static bool first_report(const struct lock_class *held,
			 const struct lock_class *taken)
{
	unsigned long flags = arch_irq_save();
	bool fresh = true;

	raw_spin_lock(&report_lock);
	for (unsigned int i = 0; i < nreported; i++)
		if (reported[i].held == held && reported[i].taken == taken)
			fresh = false;
	if (fresh) {
		nreports++;
		if (nreported < MAX_REPORTED) {
			reported[nreported].held = held;
			reported[nreported].taken = taken;
			nreported++;
		}
	}
	raw_spin_unlock(&report_lock);
	arch_irq_restore(flags);
	return fresh;
}

static void report_inversion(const struct held_lock *h,
			     const struct lockdep_map *map,
			     uintptr_t site)
{
	char a[96], b[96];

	if (!first_report(h->map->class, map->class))
		return;
	pr_warn("lockdep: lock order violation in task %s\n",
		current_task_name());
	pr_warn("  acquiring %s (%s, rank %d) at %s\n",
		map->name,
		class_name(map),
		rank_of(map),
		ksym_format(site, a, sizeof(a)));
	pr_warn("  while holding %s (%s, rank %d) acquired at %s\n",
		h->map->name,
		class_name(h->map),
		rank_of(h->map),
		ksym_format(h->site, b, sizeof(b)));
	dump_stack();
}

/* The highest rank @lt holds (held_lock.top of its top entry; 0: none). */
static int top_rank(const struct lockdep_task *lt)
{
	return lt->depth ? lt->held[lt->depth - 1].top : LOCK_RANK_NONE;
}

/* Report each lock held that @map, of @rank, may not be taken under. */
static void walk_order(struct lockdep_task *lt,
		       const struct lockdep_map *map,
		       int rank,
		       unsigned int subclass,
		       uintptr_t site)
{
	for (unsigned int i = 0; i < lt->depth; i++) {
		const struct held_lock *h = &lt->held[i];
		int hr = rank_of(h->map);
		if (hr == LOCK_RANK_NONE)
			continue;
		/* Same class: allowed only as an ordered nested acquisition. */
		bool nested_ok =
		    h->map->class == map->class && subclass > h->subclass;
		if (hr > rank || (hr == rank && !nested_ok))
			report_inversion(h, map, site);
	}
}

/* A lock ranked above every lock held (top_rank) cannot break the order:
 * only a lock that is not (rarer: nested ones) walks the held stack. */
static inline void check_order(struct lockdep_task *lt,
			       const struct lockdep_map *map,
			       unsigned int subclass,
			       uintptr_t site)
{
	int rank = rank_of(map);

	if (rank != LOCK_RANK_NONE && rank <= top_rank(lt))
		walk_order(lt, map, rank, subclass, site);
}

void lockdep_acquire_tracked(const struct lockdep_map *map,
			     enum lock_mode mode,
			     unsigned int subclass,
			     uintptr_t site)
{
	struct lockdep_task *lt = __lockdep_current();
	int top;

	if (!lt)
		return;
	lt->acquired++;
	check_order(lt, map, subclass, site);
	if (lt->depth == LOCKDEP_MAX_HELD) {
		WARN_ON_ONCE(1); /* too deep to track */
		lt->untracked++;
		return;
	}
	top = MAX(top_rank(lt), rank_of(map));
	lt->held[lt->depth++] =
	    (struct held_lock){ map, site, mode, subclass, top };
}

/* Unlocking what one does not hold: a double unlock, or someone else's
 * lock. Reported every time, with the stack. */
static void report_bad_release(const struct lockdep_map *map)
{
	unsigned long flags = arch_irq_save();

	raw_spin_lock(&report_lock);
	nreports++;
	raw_spin_unlock(&report_lock);
	arch_irq_restore(flags);
	pr_warn("lockdep: task %s releases %s (%s), which it does not hold\n",
		current_task_name(),
		map->name,
		class_name(map));
	dump_stack();
}

void lockdep_release_tracked(const struct lockdep_map *map)
{
	struct lockdep_task *lt = __lockdep_current();

	if (!lt)
		return;
	for (unsigned int i = lt->depth; i-- > 0;) {
		if (lt->held[i].map == map) {
			/* The entries above it move down, their tops now
			 * without it (none: it was the top one). */
			int top = i ? lt->held[i - 1].top : LOCK_RANK_NONE;

			for (; i + 1 < lt->depth; i++) {
				lt->held[i] = lt->held[i + 1];
				top = MAX(top, rank_of(lt->held[i].map));
				lt->held[i].top = top;
			}
			lt->depth--;
			return;
		}
	}
	if (lt->untracked) /* perhaps one taken past the table */
		lt->untracked--;
	else
		report_bad_release(map);
}

void lockdep_downgrade(const struct lockdep_map *map)
{
	struct lockdep_task *lt = __lockdep_current();

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;
	for (unsigned int i = 0; lt && i < lt->depth; i++)
		if (lt->held[i].map == map)
			lt->held[i].mode = LOCK_MODE_SHARED;
}

bool lockdep_is_held(const struct lockdep_map *map, enum lock_mode mode)
{
	struct lockdep_task *lt = __lockdep_current();

	if (!lt || !IS_ENABLED(CONFIG_LOCKDEP))
		return true; /* no task context: cannot tell, do not warn */
	for (unsigned int i = 0; i < lt->depth; i++)
		if (lt->held[i].map == map && (lt->held[i].mode & mode))
			return true;
	return false;
}

void lockdep_set_class(struct lockdep_map *map, struct lock_class *class)
{
	map->class = class;
}

/* A fault takes mm->mmap_lock: the class stands for it until mmap lands. */
static DEFINE_LOCK_CLASS(mmap_lock_class, LOCK_RANK_MMAP);
static const struct lockdep_map fault_map = { &mmap_lock_class,
					      "mmap_lock (a fault)" };

void lockdep_might_fault(uintptr_t site)
{
	struct lockdep_task *lt = __lockdep_current();

	if (lt && IS_ENABLED(CONFIG_LOCKDEP))
		check_order(lt, &fault_map, 0, site);
}

unsigned long lockdep_reports(void)
{
	return READ_ONCE(nreports);
}

unsigned long lockdep_acquired(void)
{
	struct lockdep_task *lt = __lockdep_current();

	return lt ? lt->acquired : 0;
}
