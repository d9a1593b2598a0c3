/*
 * fs/syscalls_range.c: the two-file calls for tasks - copy_file_range(2)
 * and whole's swapext - over fs/copy_range.c. Errors as Linux: -1 and
 * errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <fs/internal.h>

/* Where to start: *@off, or the file's position (NULL @off), read and
 * written back without f_pos_lock, as Linux does for this call. */
static loff_t start_of(struct file *f, const off_t *off)
{
	return off ? *off : READ_ONCE(f->f_pos);
}

static void advance(struct file *f, off_t *off, loff_t pos)
{
	if (off)
		*off = pos;
	else
		WRITE_ONCE(f->f_pos, pos);
}

ssize_t copy_file_range(int fd_in,
			off_t *off_in,
			int fd_out,
			off_t *off_out,
			size_t len,
			unsigned int flags)
{
	struct file *in = fd_get(fd_in), *out = fd_get(fd_out);
	loff_t pin, pout;
	ssize_t ret = -EBADF;

	if (in && out) {
		pin = start_of(in, off_in);
		pout = start_of(out, off_out);
		ret = vfs_copy_file_range(in, &pin, out, &pout, len, flags);
		if (ret > 0) {
			advance(in, off_in, pin);
			advance(out, off_out, pout);
		}
	}
	if (in)
		fput(in);
	if (out)
		fput(out);
	return sys_ret(ret);
}

int swapext(int fd_target, int fd_donor)
{
	struct file *target = fd_get(fd_target), *donor = fd_get(fd_donor);
	int ret = -EBADF;

	if (target && donor)
		ret = vfs_swapext(target, donor);
	if (target)
		fput(target);
	if (donor)
		fput(donor);
	return sys_ret(ret);
}
