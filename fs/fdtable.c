/*
 * fs/fdtable.c: per-task descriptor tables.
 *
 * A task's table (task->files) is made on its first descriptor call, with
 * 0, 1 and 2 open on the console; open() takes the lowest free slot of
 * FD_MAX (dup and fcntl(F_DUPFD) share the file: one offset, one set of
 * flags). The console file writes to the console and reads as end of file
 * (the shell owns the keyboard). The table is released when the task is
 * joined (files_release), closing what the task left open.
 *
 * A table is used only by its task. Changes to it (install, close) still
 * take fdt->lock, so that a later sharing of tables needs no new rules
 * there; fd_get, on every read and write, takes none: only the owning
 * task changes the table, and it is the one looking (a shared table would
 * need the slots published with rcu_assign_pointer and the files freed
 * through call_rcu, as Linux does).
 */
#include <fcntl.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

struct fdtable {
	struct spinlock lock;
	/* protected by lock: */
	struct file *fd[FD_MAX];
};

static ssize_t console_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	(void)f;
	(void)buf;
	(void)len;
	(void)pos;
	return 0;
}

static ssize_t
console_file_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	(void)f;
	(void)pos;
	console_write(buf, len);
	return len;
}

static const struct file_operations console_fops = {
	.read = console_read,
	.write = console_file_write,
};

/* Never freed: its count starts at one that nobody drops. */
static struct file console_file = {
	.f_op = &console_fops,
	.f_flags = O_RDWR,
	.f_count = 1,
};

static int console_file_init(void)
{
	mutex_init(&console_file.f_pos_lock, "console_f_pos_lock", NULL);
	return 0;
}
INIT_HOOK(console_file, console_file_init, INIT_LEVEL_SCHED);

bool file_is_console(const struct file *f)
{
	return f == &console_file;
}

static struct fdtable *files_get(void)
{
	struct task *t = current_task();
	struct fdtable *fdt = t->files;

	if (fdt)
		return fdt;
	fdt = kzalloc(sizeof(*fdt), GFP_KERNEL);
	if (!fdt)
		return NULL;
	spin_lock_init(&fdt->lock, "fdtable");
	for (int i = 0; i < 3; i++)
		fdt->fd[i] = fget(&console_file);
	t->files = fdt;
	return fdt;
}

int fd_install_from(struct file *f, int min)
{
	struct fdtable *fdt = files_get();
	int fd;

	if (!fdt)
		return -ENOMEM;
	if (min < 0 || min >= FD_MAX)
		return -EINVAL;
	spin_lock(&fdt->lock);
	for (fd = min; fd < FD_MAX && fdt->fd[fd]; fd++)
		;
	if (fd < FD_MAX)
		fdt->fd[fd] = f;
	spin_unlock(&fdt->lock);
	return fd < FD_MAX ? fd : -EMFILE;
}

int fd_install(struct file *f)
{
	return fd_install_from(f, 0);
}

struct file *fd_get(int fd)
{
	struct fdtable *fdt = files_get();
	struct file *f = NULL;

	if (!fdt || fd < 0 || fd >= FD_MAX)
		return NULL;
	f = READ_ONCE(fdt->fd[fd]); /* ours: no other task changes it */
	return f ? fget(f) : NULL;
}

int fd_close(int fd)
{
	struct fdtable *fdt = files_get();
	struct file *f = NULL;

	if (!fdt || fd < 0 || fd >= FD_MAX)
		return -EBADF;
	spin_lock(&fdt->lock);
	f = fdt->fd[fd];
	fdt->fd[fd] = NULL;
	spin_unlock(&fdt->lock);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

/**
 * fd_dup2 - make @newfd refer to @oldfd's file, closing what @newfd had.
 * Context: task, may sleep (the file closed may be the last reference).
 * Return: @newfd, or -EBADF (@oldfd not open, @newfd out of range).
 */
int fd_dup2(int oldfd, int newfd)
{
	struct fdtable *fdt = files_get();
	struct file *f, *old;

	if (!fdt)
		return -ENOMEM;
	if (newfd < 0 || newfd >= FD_MAX)
		return -EBADF;
	f = fd_get(oldfd);
	if (!f)
		return -EBADF;
	if (oldfd == newfd) {
		fput(f);
		return newfd;
	}
	spin_lock(&fdt->lock);
	old = fdt->fd[newfd];
	fdt->fd[newfd] = f;
	spin_unlock(&fdt->lock);
	if (old)
		fput(old);
	return newfd;
}

/* Close what @t left open, drop its working directory.
 * Context: the joiner of @t, may sleep. */
void files_release(struct task *t)
{
	struct fdtable *fdt = t->files;

	cwd_release(t);
	if (!fdt)
		return;
	for (int fd = 0; fd < FD_MAX; fd++)
		if (fdt->fd[fd])
			fput(fdt->fd[fd]);
	t->files = NULL;
	kfree(fdt);
}
