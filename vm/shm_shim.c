// SPDX-License-Identifier: GPL-2.0-only
/*
 * shm_shim - System V shared memory for fio on the test kernels, which are
 * built without CONFIG_SYSVIPC (it changes task_struct: every object of
 * the kernel would be compiled again for one program of one scenario).
 *
 * Debian's fio keeps its job table in a System V shared memory segment
 * and gives up ("failed to setup shm segment") when shmget() fails.
 * Preloaded (LD_PRELOAD=libshm_shim.so), this library answers shmget()
 * for private segments with shared anonymous memory, which the job
 * processes fio forks share with it as they would the segment.  Nothing
 * else is emulated: keys other than IPC_PRIVATE are refused (EINVAL).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

#define SHM_SHIM_SEGS 16

static struct {
	size_t size;
	void *addr;
} segs[SHM_SHIM_SEGS];

static int seg_index(int id)
{
	id--;
	if (id < 0 || id >= SHM_SHIM_SEGS || !segs[id].addr) {
		errno = EINVAL;
		return -1;
	}
	return id;
}

int shmget(key_t key, size_t size, int flags)
{
	void *p;
	int i;

	(void)flags;
	if (key != IPC_PRIVATE) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < SHM_SHIM_SEGS; i++) {
		if (segs[i].addr)
			continue;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		segs[i].addr = p;
		segs[i].size = size;
		return i + 1;
	}
	errno = ENOSPC;
	return -1;
}

void *shmat(int id, const void *addr, int flags)
{
	int i = seg_index(id);

	(void)addr;
	(void)flags;
	return i < 0 ? (void *)-1 : segs[i].addr;
}

int shmdt(const void *addr)
{
	(void)addr;
	return 0;
}

int shmctl(int id, int cmd, struct shmid_ds *buf)
{
	int i = seg_index(id);

	if (i < 0)
		return -1;
	switch (cmd) {
	case IPC_RMID:
		/* unmapped when the process ends, as a removed segment */
		return 0;
	case IPC_STAT:
		memset(buf, 0, sizeof(*buf));
		buf->shm_segsz = segs[i].size;
		return 0;
	default:
		errno = EINVAL;
		return -1;
	}
}
