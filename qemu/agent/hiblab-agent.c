// SPDX-License-Identifier: GPL-2.0
/*
 * hiblab-agent: /init of the hibernation lab's guest.
 *
 * Built static against the kernel tree's tools/include/nolibc.  It speaks
 * one line per event, "HIBLAB <event> key=value ...", on its own UART
 * (ttyS1), which is the only interface to the host (tools/hiblab/lab/protocol.py
 * parses it); ttyS0 carries only the kernel console, so kernel messages
 * never split a protocol line.  Each line is mirrored to the console for
 * context.  hiblab.proto=console (below) puts the protocol on the console
 * alone.
 *
 * hiblab.mode=image    mkswap + swapon the disk, fill memory with a keyed
 *                      pattern (and a tmpfs file), start a worker per CPU,
 *                      hibernate with /sys/power/disk = shutdown, the
 *                      hibernating task and each worker holding known values
 *                      in the registers a program owns (cpu-state.h).  When the
 *                      write to /sys/power/state returns, the image was
 *                      restored (or saving failed): verify memory, CPUs and
 *                      every holder's registers, report, and
 *                      hibernate again until hiblab.cycles rounds are done.
 *                      hiblab.trace=1 enables power:suspend_resume first;
 *                      hiblab.churn=1 toggles CPUs while hibernating.
 * hiblab.mode=restore  report this kernel's layout, wait for "go" on the
 *                      protocol channel, then trigger the resume by writing
 *                      the swap device to /sys/power/resume, as initramfs
 *                      resumers do.  If that returns, there was no image.
 * hiblab.mode=probe    say "probe-ok" and power off: the host's check that
 *                      this accelerator boots a guest at all.
 *
 * A kernel that has the disk's driver as a module (Debian's own kernels:
 * virtio_blk=m) gets the modules in the initramfs and their paths, in load
 * order, in /hiblab-modules (tools/hiblab/kernel/debian.py): the agent
 * loads them first, as an initramfs does, and waits for the disk.
 *
 * For a test farm such as LAVA, which has one serial console and no host
 * step between the boots (the defaults are the local lab's):
 *
 * hiblab.proto=console the protocol goes to the console only, once per
 *                      line, as kernel log records (/dev/kmsg): a line
 *                      the agent wrote to the console itself could be cut
 *                      by a printk (seen: "HIBLAB layout bo[ 4.19] PM:
 *                      ..."), a record never is.  Needs printk.devkmsg=on,
 *                      or /dev/kmsg's rate limit drops lines.  ttyS1 is
 *                      not opened; "go" (without go=auto) is read from the
 *                      console.  Default: uart.
 * hiblab.go=auto       restore mode: resume right after "ready-to-resume"
 *                      instead of waiting for "go".  Default: wait.
 * hiblab.damage=signature|header|jump-phys|data
 *                      restore mode: before "ready-to-resume", damage the
 *                      image on the disk exactly as tools/hiblab/lab/swap.py's
 *                      corrupt() does from the host between the boots, and
 *                      say "damaged".  No image to damage is a
 *                      checker-error, never a verdict.
 *
 * The protocol: event (modes that send it): keys.  The same table is
 * tools/hiblab/lab/protocol.py's EVENTS (its table_text()); its protocol_test.py
 * checks this copy and every say() below against it.
 *
 * hello (image,restore,probe): mode
 * module (image,restore,probe): path ret
 * disk (image,restore,probe): dev waited_ms
 * probe-ok (probe): -
 * layout (image,restore): boot text text_phys page_offset_base
 *         swsusp_arch_resume restore_image hlt_play_dead native_play_dead
 * cpu (image,restore): cpu online ret
 * swap (image,restore): dev bytes ret
 * refused (image): reason
 * checker-error (image,restore,probe): what errno ret bytes reason pages
 * workers (image): online
 * hibernating (image): round key bytes online
 * resumed (image): round ret
 * pattern-check (image): round bytes bad_words first_bad
 * tmpfs-check (image): bytes bad_words first_bad
 * cpus-check (image): round before after
 * trace-check (image): round machine_suspend
 * cpu-state (image): round cpu who regs bad
 * cpu-state-bad (image): round cpu who reg expected found
 * worker-stuck (image): cpu
 * workers-check (image): running stuck
 * done (image): -
 * damaged (restore): what page offset bytes map_page pages
 * ready-to-resume (restore): dev
 * resuming (restore): -
 * no-image (restore): ret
 *
 * Every verdict on the data is about bytes the agent wrote and read back
 * itself first; when it cannot set up or read its pattern it says
 * "checker-error", never a data verdict.
 */

#include <stdbool.h>
#include <asm/ioctls.h>
#include <linux/elf.h>
#include <linux/mman.h>

/* nolibc's raw system call macros: my_syscallN in 6.12, __nolibc_syscallN
 * in 7.3; the agent builds against either base's tree. */
#if !defined(my_syscall0) && defined(__nolibc_syscall0)
#define my_syscall0 __nolibc_syscall0
#define my_syscall2 __nolibc_syscall2
#define my_syscall3 __nolibc_syscall3
#define my_syscall5 __nolibc_syscall5
#endif

#include "cpu-state.h"

#define SWAP_DEV	"/dev/vda"
#define MAX_CPUS	64
#define TMPFS_BYTES	(4UL << 20)

#define PROTO_TTY	"/dev/ttyS1"

/*
 * The image on the swap disk as kernel/power/swap.c writes it; the layout
 * is documented in tools/hiblab/lab/swap.py, whose constants have these names
 * (tools/hiblab/lab/protocol_test.py checks that they agree).
 */
#define PAGE		4096
#define HIBERNATE_SIG	"S1SUSPEND"
#define SIG_OFFSET	4086	/* swsusp_header.sig in page 0 */
#define IMAGE_OFFSET	4064	/* swsusp_header.image: first map page */
#define MAGIC_OFFSET	24	/* header page: restore_data_record.magic */
#define JUMP_PHYS_OFFSET	8	/* header page: .jump_address_phys */
#define JUMP_PHYS_MOVE	0x201000	/* to another 2M page, off its offset */
#define MAP_ENTRIES	511	/* swap_map_page.entries[] */
#define FLAGS_OFFSET	4072	/* swsusp_header.flags in page 0 */
#define SF_NOCOMPRESS_MODE	2	/* kernel/power/power.h */
#define DATA_BYTES	16	/* inverted by a "data" damage */

static char cmdline[4096];
static int proto_fd = 1;
static bool on_console;		/* hiblab.proto=console: proto_fd is /dev/kmsg */
static unsigned long long key;

/*
 * Shared with the workers: one page per CPU.  Its worker maps it again at
 * CS_SLOT, where the spin of cs_hold() counts (count) and waits for the
 * agent to ask for a reading (ask: the round); the worker answers there.
 */
struct worker_slot {
	volatile unsigned long long count;	/* CS_COUNT */
	volatile unsigned long long ask;	/* CS_ASK */
	volatile unsigned long long answered;	/* the round answered */
	unsigned int nbad;			/* registers that differ */
	char regs[96];				/* the register groups held */
	struct {
		char reg[12];
		unsigned long long want, got;
	} bad[8];				/* the first that differ */
};
static char *slots;
static bool worker_on[MAX_CPUS];

static struct worker_slot *slot(int cpu)
{
	return (struct worker_slot *)(slots + cpu * PAGE);
}

/* Minimal formatter: %s %d %u %lu %lx %llu %llx, nothing else. */
static int vfmt(char *buf, int size, const char *fmt, va_list ap)
{
	int n = 0;

	for (; *fmt && n < size - 1; fmt++) {
		unsigned long long v;
		char num[24], *q = num + sizeof(num);
		const char *s;
		int base = 10, longs = 0;
		bool neg = false;

		if (*fmt != '%') {
			buf[n++] = *fmt;
			continue;
		}
		fmt++;
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			for (s = va_arg(ap, const char *); s && *s && n < size - 1;)
				buf[n++] = *s++;
			continue;
		case 'd':
			v = longs ? va_arg(ap, long) : va_arg(ap, int);
			neg = (long long)v < 0;
			if (neg)
				v = -v;
			break;
		case 'x':
			base = 16;
			/* fall through */
		case 'u':
			v = longs > 1 ? va_arg(ap, unsigned long long) :
			    longs ? va_arg(ap, unsigned long) :
			    va_arg(ap, unsigned int);
			break;
		default:
			buf[n++] = '?';
			continue;
		}
		*--q = '\0';
		do {
			*--q = "0123456789abcdef"[v % base];
			v /= base;
		} while (v);
		if (neg)
			*--q = '-';
		while (*q && n < size - 1)
			buf[n++] = *q++;
	}
	buf[n] = '\0';
	return n;
}

static int fmt(char *buf, int size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vfmt(buf, size, f, ap);
	va_end(ap);
	return n;
}

static void say(const char *f, ...)
{
	char buf[512] = "HIBLAB ";
	va_list ap;
	int n;

	va_start(ap, f);
	n = 7 + vfmt(buf + 7, sizeof(buf) - 8, f, ap);
	va_end(ap);
	buf[n++] = '\n';
	write(proto_fd, buf, n);
	if (!on_console && proto_fd != 1)
		write(1, buf, n);
	/*
	 * write() returns once the line is in the tty's buffer; the UART
	 * sends it later.  A power-off, a snapshot or the jump into the
	 * image right after would lose it (seen on a loaded host: "done"
	 * missing on ttyS1), so tcdrain() before going on.
	 */
	if (!on_console)
		ioctl(proto_fd, TCSBRK, (void *)1);
	ioctl(1, TCSBRK, (void *)1);
}

static const char *find(const char *hay, const char *needle)
{
	size_t len = strlen(needle);

	for (; *hay; hay++)
		if (!strncmp(hay, needle, len))
			return hay;
	return NULL;
}

static void power_off(void)
{
	my_syscall0(__NR_sync);
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	for (;;)
		my_syscall0(__NR_pause);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, text, strlen(text));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

static int read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY);
	int n, total = 0;

	if (fd < 0)
		return -errno;
	while (total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* The value of hiblab.<name>= on the kernel command line, or NULL. */
static const char *param(const char *name)
{
	static char value[256];
	char pat[64];
	const char *p;
	int i;

	fmt(pat, sizeof(pat), "hiblab.%s=", name);
	p = find(cmdline, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	for (i = 0; p[i] && p[i] != ' ' && p[i] != '\n' && i < 255; i++)
		value[i] = p[i];
	value[i] = '\0';
	return value;
}

static unsigned long param_ul(const char *name, unsigned long def)
{
	const char *v = param(name);

	return v ? strtoul(v, NULL, 0) : def;
}

static unsigned long long splitmix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static bool under_hypervisor(void)
{
	unsigned int eax = 1, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ecx & (1U << 31);
}

static unsigned long long rdtsc(void)
{
	unsigned int lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((unsigned long long)hi << 32) | lo;
}

/* Layout of the running kernel, from /proc/kallsyms and /proc/kcore. */
static void report_layout(const char *boot)
{
	static const char * const names[] = {
		"_text", "swsusp_arch_resume", "restore_image",
		"hlt_play_dead", "native_play_dead", "page_offset_base",
	};
	unsigned long addr[6] = { 0 };
	unsigned long pob = 0, text_phys = 0;
	char line[256], *p;
	int fd, n, len = 0, i;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	fd = open("/proc/kallsyms", O_RDONLY);
	while (fd >= 0 && (n = read(fd, line + len, sizeof(line) - 1 - len)) > 0) {
		len += n;
		line[len] = '\0';
		while ((p = strchr(line, '\n'))) {
			*p = '\0';
			for (i = 0; i < 6; i++) {
				const char *sym = strrchr(line, ' ');

				if (sym && !strcmp(sym + 1, names[i]) && !addr[i])
					addr[i] = strtoul(line, NULL, 16);
			}
			len -= p + 1 - line;
			memmove(line, p + 1, len + 1);
		}
	}
	if (fd >= 0)
		close(fd);

	/*
	 * /proc/kcore describes the direct map with vaddr = __va(paddr) and
	 * the kernel text with its physical address: both KASLR results.
	 */
	fd = open("/proc/kcore", O_RDONLY);
	if (fd >= 0 && read(fd, &eh, sizeof(eh)) == sizeof(eh)) {
		for (i = 0; i < eh.e_phnum; i++) {
			lseek(fd, eh.e_phoff + i * sizeof(ph), SEEK_SET);
			if (read(fd, &ph, sizeof(ph)) != sizeof(ph))
				break;
			if (ph.p_type != PT_LOAD || ph.p_paddr == (Elf64_Addr)-1)
				continue;
			if (ph.p_vaddr == addr[0])
				text_phys = ph.p_paddr;
			else if (!pob && ph.p_vaddr < addr[0])
				pob = ph.p_vaddr - ph.p_paddr;
		}
	}
	if (fd >= 0)
		close(fd);

	say("layout boot=%s text=0x%lx text_phys=0x%lx page_offset_base=0x%lx "
	    "swsusp_arch_resume=0x%lx restore_image=0x%lx hlt_play_dead=0x%lx "
	    "native_play_dead=0x%lx", boot, addr[0], text_phys, pob, addr[1],
	    addr[2], addr[3], addr[4]);
}

static int cpu_online_list(char *buf, int size)
{
	int n = read_file("/sys/devices/system/cpu/online", buf, size);

	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return n;
}

static void set_cpus(const char *list, const char *value)
{
	char path[64];
	const char *p = list;

	while (p && *p) {
		unsigned long cpu = strtoul(p, NULL, 10);
		int ret;

		fmt(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%lu/online", cpu);
		ret = write_file(path, value);
		say("cpu cpu=%lu online=%s ret=%d", cpu, value, ret);
		p = strchr(p, ',');
		if (p)
			p++;
	}
}

/* The register groups a holder keeps, as cpu-state events name them. */
static void cs_groups(char *buf, int size, unsigned int gprs)
{
	fmt(buf, size, "gpr%d,%s,%s%smxcsr,fcw,%sfs_base,gs_base",
	    __builtin_popcount(gprs), cs_avx512 ? "zmm0-31" : cs_avx ?
	    "ymm0-15" : "xmm0-15", cs_avx512 ? "k0-7," : "", "",
	    cs_pkru ? "pkru," : "");
}

static void cs_bad(struct worker_slot *s, const char *reg,
		   unsigned long long want, unsigned long long got)
{
	if (s->nbad < sizeof(s->bad) / sizeof(s->bad[0])) {
		fmt(s->bad[s->nbad].reg, sizeof(s->bad[0].reg), "%s", reg);
		s->bad[s->nbad].want = want;
		s->bad[s->nbad].got = got;
	}
	s->nbad++;
}

/* cs_got against cs_want, into s: the general registers in gprs. */
static void cs_compare(struct worker_slot *s, unsigned int gprs)
{
	int i, j, n = cs_avx512 ? 32 : 16, lanes = cs_avx512 ? 8 :
		      cs_avx ? 4 : 2;
	char name[12];

	s->nbad = 0;
	cs_groups(s->regs, sizeof(s->regs), gprs);
	for (i = 0; i < 15; i++)
		if ((gprs >> i & 1) && cs_want.gpr[i] != cs_got.gpr[i])
			cs_bad(s, cs_gpr_name[i], cs_want.gpr[i], cs_got.gpr[i]);
	for (i = 0; i < n; i++)
		for (j = 0; j < lanes; j++) {
			unsigned long long w = ((unsigned long long *)
						cs_want.vec[i])[j];
			unsigned long long g = ((unsigned long long *)
						cs_got.vec[i])[j];

			fmt(name, sizeof(name), "%s%d.%d", cs_avx512 ? "zmm" :
			    cs_avx ? "ymm" : "xmm", i, j);
			if (w != g)
				cs_bad(s, name, w, g);
		}
	for (i = 0; cs_avx512 && i < 8; i++) {
		fmt(name, sizeof(name), "k%d", i);
		if (cs_want.k[i] != cs_got.k[i])
			cs_bad(s, name, cs_want.k[i], cs_got.k[i]);
	}
	if (cs_want.mxcsr != cs_got.mxcsr)
		cs_bad(s, "mxcsr", cs_want.mxcsr, cs_got.mxcsr);
	if ((cs_want.fcw & CS_FCW_MASK) != (cs_got.fcw & CS_FCW_MASK))
		cs_bad(s, "fcw", cs_want.fcw, cs_got.fcw);
	if (cs_pkru && cs_want.pkru != cs_got.pkru)
		cs_bad(s, "pkru", cs_want.pkru, cs_got.pkru);
	if (cs_want.fs_base != cs_got.fs_base)
		cs_bad(s, "fs_base", cs_want.fs_base, cs_got.fs_base);
	if (cs_want.gs_base != cs_got.gs_base)
		cs_bad(s, "gs_base", cs_want.gs_base, cs_got.gs_base);
}

/* Which registers a program has here, and a holder's values in them. */
static void cs_prepare(int who)
{
	struct cs_features f = cs_features();

	cs_avx = f.avx;
	cs_avx512 = f.avx512;
	cs_pkru = f.pkru;
	cs_values(&cs_want, key, who);
	cs_arch_prctl(ARCH_SET_FS, cs_want.fs_base);
	cs_arch_prctl(ARCH_SET_GS, cs_want.gs_base);
}

static void cs_bases(void)
{
	cs_arch_prctl(ARCH_GET_FS, (unsigned long)&cs_got.fs_base);
	cs_arch_prctl(ARCH_GET_GS, (unsigned long)&cs_got.gs_base);
}

/* A worker: holds its registers on its CPU, answers when asked. */
static void worker(int cpu)
{
	struct worker_slot *s;

	s = (void *)my_syscall5(__NR_mremap, slot(cpu), PAGE, PAGE,
				MREMAP_MAYMOVE | MREMAP_FIXED, CS_SLOT);
	if ((unsigned long)s != CS_SLOT)
		for (;;)	/* it still counts; it never answers */
			slot(cpu)->count++;
	cs_prepare(cpu);
	for (;;) {
		cs_hold();
		cs_bases();
		cs_compare(s, CS_ALL_GPRS);
		s->answered = s->ask;
		s->ask = 0;
	}
}

static void start_worker(int cpu)
{
	unsigned long mask[MAX_CPUS / 64] = { 0 };

	worker_on[cpu] = true;
	if (fork() == 0) {
		mask[cpu / 64] = 1UL << (cpu % 64);
		my_syscall3(__NR_sched_setaffinity, 0, sizeof(mask), mask);
		worker(cpu);
	}
}

static void say_cpu_state(unsigned long round, int cpu, const char *who,
			  struct worker_slot *s)
{
	unsigned int i;

	say("cpu-state round=%lu cpu=%d who=%s regs=%s bad=%u", round, cpu,
	    who, s->regs, s->nbad);
	for (i = 0; i < s->nbad && i < sizeof(s->bad) / sizeof(s->bad[0]);
	     i++)
		say("cpu-state-bad round=%lu cpu=%d who=%s reg=%s expected=0x%llx"
		    " found=0x%llx", round, cpu, who, s->bad[i].reg,
		    s->bad[i].want, s->bad[i].got);
}

/* Every worker reads its registers back; each says what it found. */
static void check_cpu_state(unsigned long round)
{
	struct timeval tv = { .tv_usec = 10000 };
	int cpu, tries, waiting;

	for (cpu = 0; cpu < MAX_CPUS; cpu++)
		if (worker_on[cpu])
			slot(cpu)->ask = round;
	for (tries = 0; tries < 300; tries++) {
		waiting = 0;
		for (cpu = 0; cpu < MAX_CPUS; cpu++)
			waiting += worker_on[cpu] &&
				   slot(cpu)->answered != round;
		if (!waiting)
			break;
		tv.tv_usec = 10000;
		select(0, NULL, NULL, NULL, &tv);
	}
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!worker_on[cpu])
			continue;
		if (slot(cpu)->answered == round)
			say_cpu_state(round, cpu, "worker", slot(cpu));
		else
			say("cpu-state round=%lu cpu=%d who=worker "
			    "regs=unanswered bad=0", round, cpu);
	}
}

/*
 * The hibernating task writes "disk" to /sys/power/state with its own
 * registers held (cs_hold_write()); after the resume it reads them back.
 */
static int hibernate_held(unsigned long round)
{
	static struct worker_slot task;
	unsigned int cpu = 0;
	int fd = open("/sys/power/state", O_WRONLY);
	long ret;

	if (fd < 0)
		return -errno;
	ret = cs_hold_write(fd, "disk", 4);
	close(fd);
	cs_bases();
	my_syscall3(__NR_getcpu, &cpu, NULL, NULL);
	cs_compare(&task, CS_TASK_GPRS);
	/* A failed save thaws with the registers as they were: worth a
	 * reading too, but the resume is what it is about. */
	say_cpu_state(round, cpu, "task", &task);
	return ret < 0 ? (int)ret : 0;
}

static bool cpu_online(int cpu)
{
	char path[64], state[8];

	fmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	/* CPU 0 has no online file: it cannot go offline. */
	if (read_file(path, state, sizeof(state)) <= 0)
		return cpu == 0;
	return state[0] == '1';
}

static int nr_possible_cpus(void)
{
	char path[64];
	int cpu;

	for (cpu = 1; cpu < MAX_CPUS; cpu++) {
		fmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		int fd = open(path, O_RDONLY | O_DIRECTORY);

		if (fd < 0)
			break;
		close(fd);
	}
	return cpu;
}

static void start_workers(void)
{
	char online[64];
	int cpu;

	slots = mmap(NULL, MAX_CPUS * PAGE, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (slots == MAP_FAILED) {
		say("checker-error what=worker-mmap errno=%d", errno);
		power_off();
	}
	for (cpu = 0; cpu < nr_possible_cpus(); cpu++)
		if (cpu_online(cpu))
			start_worker(cpu);
	cpu_online_list(online, sizeof(online));
	say("workers online=%s", online);
}

/* Every online CPU's worker must still be counting. */
static int check_workers(void)
{
	unsigned long long before[MAX_CPUS];
	int cpu, stuck = 0, running = 0, n = nr_possible_cpus();
	struct timeval tv = { .tv_sec = 1 };

	for (cpu = 0; cpu < n; cpu++)
		before[cpu] = slot(cpu)->count;
	select(0, NULL, NULL, NULL, &tv);
	for (cpu = 0; cpu < n; cpu++) {
		if (!cpu_online(cpu))
			continue;
		if (slot(cpu)->count == before[cpu]) {
			say("worker-stuck cpu=%d", cpu);
			stuck++;
		} else {
			running++;
		}
	}
	say("workers-check running=%d stuck=%d", running, stuck);
	return stuck;
}

static int mkswap_and_swapon(void)
{
	static char page[4096];
	unsigned long long size = 0;
	unsigned int *h = (unsigned int *)(page + 1024);
	int fd = open(SWAP_DEV, O_RDWR), ret;

	if (fd < 0)
		return -errno;
	ioctl(fd, BLKGETSIZE64, &size);
	/* union swap_header: version 1, last_page, no bad pages. */
	memset(page, 0, sizeof(page));
	h[0] = 1;
	h[1] = size / 4096 - 1;
	memcpy(page + 4096 - 10, "SWAPSPACE2", 10);
	ret = write(fd, page, sizeof(page)) == sizeof(page) ? 0 : -EIO;
	fsync(fd);
	close(fd);
	if (ret)
		return ret;
	ret = my_syscall2(__NR_swapon, SWAP_DEV, 0);
	say("swap dev=%s bytes=%llu ret=%d", SWAP_DEV, size, ret);
	return ret;
}

static void fill(unsigned long long *p, unsigned long words,
		 unsigned long long k)
{
	unsigned long i;

	for (i = 0; i < words; i++)
		p[i] = splitmix64(k ^ i);
}

static unsigned long mismatches(const unsigned long long *p,
				unsigned long words, unsigned long long k,
				unsigned long *first)
{
	unsigned long i, bad = 0;

	for (i = 0; i < words; i++) {
		if (p[i] != splitmix64(k ^ i)) {
			if (!bad)
				*first = i * 8;
			bad++;
		}
	}
	return bad;
}

static int tmpfs_pattern(bool check)
{
	static unsigned long long buf[8192];
	unsigned long off, first = 0, bad = 0;
	int fd = open("/tmp/pattern", check ? O_RDONLY : O_RDWR | O_CREAT,
		      0600);

	if (fd < 0)
		return -errno;
	for (off = 0; off < TMPFS_BYTES; off += sizeof(buf)) {
		unsigned long w;

		if (!check) {
			for (w = 0; w < 8192; w++)
				buf[w] = splitmix64(~key ^ (off / 8 + w));
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				return -EIO;
			continue;
		}
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return -EIO;
		for (w = 0; w < 8192; w++)
			if (buf[w] != splitmix64(~key ^ (off / 8 + w)) && !bad++)
				first = off + w * 8;
	}
	close(fd);
	if (check)
		say("tmpfs-check bytes=%lu bad_words=%lu first_bad=%lu",
		    TMPFS_BYTES, bad, first);
	return bad ? 1 : 0;
}

static unsigned long mem_total(void)
{
	char buf[256];
	const char *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) <= 0)
		return 0;
	p = find(buf, "MemTotal:");
	return p ? strtoul(p + 9, NULL, 10) << 10 : 0;
}

/* power:suspend_resume across the cycle: the article's trace event case. */
static void trace_enable(void)
{
	int ret;

	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	ret = write_file("/sys/kernel/tracing/events/power/suspend_resume/enable",
			 "1");
	if (ret) {
		say("checker-error what=trace-enable ret=%d", ret);
		power_off();
	}
}

/* machine_suspend events in the trace buffer: begin before, end after. */
static void trace_check(int round)
{
	static char buf[65536];
	int n = read_file("/sys/kernel/tracing/trace", buf, sizeof(buf));
	const char *p = buf;
	int events = 0;

	while (n > 0 && (p = find(p, "machine_suspend"))) {
		events++;
		p++;
	}
	say("trace-check round=%d machine_suspend=%d", round, events);
}

/*
 * CPU hotplug churn while the hibernation is under way: a child toggles
 * every non-boot CPU that was online until the freezer stops it.
 */
static int start_churn(const bool *was_online)
{
	int pid = fork(), cpu, n = nr_possible_cpus();
	struct timeval tv = { .tv_usec = 2000 };
	char path[64];

	if (pid)
		return pid;
	for (;;) {
		for (cpu = 1; cpu < n; cpu++) {
			if (!was_online[cpu])
				continue;
			fmt(path, sizeof(path),
			    "/sys/devices/system/cpu/cpu%d/online", cpu);
			write_file(path, "0");
			select(0, NULL, NULL, NULL, &tv);
			write_file(path, "1");
		}
	}
}

/* Stop the churn and bring back every CPU that was online before it. */
static void stop_churn(int pid, const bool *was_online)
{
	char path[64];
	int cpu, status, n = nr_possible_cpus();

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	for (cpu = 1; cpu < n; cpu++) {
		if (!was_online[cpu] || cpu_online(cpu))
			continue;
		fmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		    cpu);
		write_file(path, "1");
	}
}

static void image_boot(void)
{
	unsigned long bytes, words, bad, first = 0;
	unsigned long cycles = param_ul("cycles", 1), round;
	bool trace = param_ul("trace", 0), churn = param_ul("churn", 0);
	bool was_online[MAX_CPUS] = { false };
	int churn_pid = 0, cpu;
	unsigned long long *pattern;
	char before[64], after[64];
	const char *p;
	int ret;

	if (!under_hypervisor()) {
		say("refused reason=no-hypervisor-bit");
		power_off();
	}
	if (mkswap_and_swapon()) {
		say("checker-error what=swap");
		power_off();
	}
	if (trace)
		trace_enable();
	set_cpus(param("offline_image"), "0");

	bytes = param_ul("pattern_mb", mem_total() / 3 >> 20) << 20;
	words = bytes / 8;
	key = splitmix64(rdtsc());
	pattern = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (pattern == MAP_FAILED) {
		say("checker-error what=pattern-mmap bytes=%lu errno=%d", bytes,
		    errno);
		power_off();
	}
	fill(pattern, words, key);
	if (mismatches(pattern, words, key, &first) || tmpfs_pattern(false) ||
	    tmpfs_pattern(true)) {
		say("checker-error what=pattern-readback");
		power_off();
	}
	start_workers();
	cs_prepare(CS_TASK);
	cpu_online_list(before, sizeof(before));
	for (cpu = 0; cpu < nr_possible_cpus(); cpu++)
		was_online[cpu] = cpu_online(cpu);
	report_layout("image");
	if (write_file("/sys/power/disk", "shutdown"))
		say("checker-error what=sys-power-disk errno=%d", errno);

	/* Every round hibernates the same memory: it must survive them all. */
	for (round = 1; round <= cycles; round++) {
		say("hibernating round=%lu key=0x%llx bytes=%lu online=%s", round,
		    key, bytes, before);
		if (churn)
			churn_pid = start_churn(was_online);
		ret = hibernate_held(round);
		/* Here after the restore, or right away if saving failed. */
		say("resumed round=%lu ret=%d", round, ret);
		if (churn)
			stop_churn(churn_pid, was_online);

		bad = mismatches(pattern, words, key, &first);
		say("pattern-check round=%lu bytes=%lu bad_words=%lu "
		    "first_bad=%lu", round, bytes, bad, first);
		tmpfs_pattern(true);
		cpu_online_list(after, sizeof(after));
		say("cpus-check round=%lu before=%s after=%s", round, before,
		    after);
		check_cpu_state(round);
		if (trace)
			trace_check(round);
		if (round < cycles)
			check_workers();
	}
	set_cpus(param("online_after"), "1");
	for (p = param("online_after"); p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		start_worker(strtoul(p, NULL, 10));
	check_workers();
	say("done");
	power_off();
}

static int disk_io(int fd, unsigned long long off, void *buf, int len,
		   bool wr)
{
	int n;

	if (lseek(fd, off, SEEK_SET) != (off_t)off)
		return -errno;
	n = wr ? write(fd, buf, len) : read(fd, buf, len);
	return n == len ? 0 : n < 0 ? -errno : -EIO;
}

/* Invert len bytes at off, as swap.py's _flip() does. */
static int flip(int fd, unsigned long long off, int len)
{
	unsigned char buf[16];
	int i, ret = disk_io(fd, off, buf, len, false);

	for (i = 0; i < len; i++)
		buf[i] ^= 0xff;
	return ret ? ret : disk_io(fd, off, buf, len, true);
}

/* Adds `by` to the little-endian u64 at `off`. */
static int move_u64(int fd, unsigned long long off, unsigned long long by)
{
	unsigned long long v;
	int ret = disk_io(fd, off, &v, sizeof(v), false);

	v += by;
	return ret ? ret : disk_io(fd, off, &v, sizeof(v), true);
}

static void damage_failed(const char *reason, int ret, int pages)
{
	say("checker-error what=damage reason=%s ret=%d pages=%d", reason,
	    ret, pages);
	power_off();
}

/* The x that splitmix64(x) maps to z, as swap.py's unmix(). */
static unsigned long long unxorshift(unsigned long long y, int shift)
{
	unsigned long long x = y;
	int i;

	for (i = 0; i <= 64 / shift; i++)
		x = y ^ (x >> shift);
	return x;
}

static unsigned long long unmix(unsigned long long z)
{
	z = unxorshift(z, 31) * 0x319642b2d24d8ec3ULL;
	z = unxorshift(z, 27) * 0x96de1b173f119089ULL;
	return unxorshift(z, 30) - 0x9e3779b97f4a7c15ULL;
}

/* Word j of a page of the pattern unmixes to the first word's ^ j. */
static bool is_pattern_page(const unsigned long long *w)
{
	unsigned long long first = unmix(w[0]);
	int j;

	for (j = 1; j < PAGE / 8; j++)
		if ((unmix(w[j]) ^ first) != (unsigned long long)j)
			return false;
	return true;
}

/* swap.py's first_pattern_page(): 0 when there is none. */
static unsigned long long first_pattern_page(int fd,
					     unsigned long long map_page,
					     unsigned long long header)
{
	static unsigned long long map[PAGE / 8], data[PAGE / 8];
	int i;

	while (map_page) {
		if (disk_io(fd, map_page * PAGE, map, PAGE, false))
			return 0;
		for (i = 0; i < MAP_ENTRIES; i++)
			if (map[i] && map[i] != header &&
			    !disk_io(fd, map[i] * PAGE, data, PAGE, false) &&
			    is_pattern_page(data))
				return map[i];
		map_page = map[MAP_ENTRIES];
	}
	return 0;
}

/*
 * hiblab.damage: what the host's swap.corrupt() does between the
 * boots, done here for a farm with no host step.  The kernel reads the
 * image with bios, past the page cache: fsync, and drop our cached copy.
 */
static void damage_image(const char *what)
{
	static unsigned char head[PAGE];
	static unsigned long long map[PAGE / 8];
	unsigned long long map_page, pages[MAP_ENTRIES], page, off;
	unsigned int flags;
	int fd, i, n = 0, len, ret;

	fd = open(SWAP_DEV, O_RDWR);
	if (fd < 0)
		damage_failed("open", -errno, 0);
	ret = disk_io(fd, 0, head, PAGE, false);
	if (ret)
		damage_failed("io", ret, 0);
	if (memcmp(head + SIG_OFFSET, HIBERNATE_SIG, sizeof(HIBERNATE_SIG) - 1))
		damage_failed("no-signature", 0, 0);
	memcpy(&map_page, head + IMAGE_OFFSET, sizeof(map_page));
	memcpy(&flags, head + FLAGS_OFFSET, sizeof(flags));
	ret = disk_io(fd, map_page * PAGE, map, PAGE, false);
	if (ret)
		damage_failed("io", ret, 0);
	/* pages[0] is the header page, the rest are data pages. */
	for (i = 0; i < MAP_ENTRIES; i++)
		if (map[i])
			pages[n++] = map[i];
	if (n < 3)
		damage_failed("short-map", 0, n);

	if (!strcmp(what, "signature")) {
		page = 0;
		off = SIG_OFFSET;
		len = 10;
		ret = disk_io(fd, off, "DAMAGED\0\0\0", len, true);
	} else if (!strcmp(what, "header")) {
		page = pages[0];
		off = page * PAGE + MAGIC_OFFSET;
		len = 8;
		ret = flip(fd, off, len);
	} else if (!strcmp(what, "jump-phys")) {
		page = pages[0];
		off = page * PAGE + JUMP_PHYS_OFFSET;
		len = 8;
		ret = move_u64(fd, off, JUMP_PHYS_MOVE);
	} else if (!(flags & SF_NOCOMPRESS_MODE)) {
		/* data_pages[len(data_pages) // 2], where a chunk is */
		page = pages[1 + (n - 1) / 2];
		off = page * PAGE;
		len = DATA_BYTES;
		ret = flip(fd, off, len);
	} else {
		page = first_pattern_page(fd, map_page, pages[0]);
		if (!page)
			damage_failed("no-pattern", 0, n);
		off = page * PAGE + PAGE / 2;
		len = DATA_BYTES;
		ret = flip(fd, off, len);
	}
	if (!ret && fsync(fd))
		ret = -errno;
	if (ret)
		damage_failed("io", ret, n);
	ioctl(fd, BLKFLSBUF, 0);
	close(fd);
	say("damaged what=%s page=%llu offset=%llu bytes=%d map_page=%llu "
	    "pages=%d", what, page, off, len, map_page, n);
}

static void restore_boot(void)
{
	/* swap.py's CORRUPTIONS */
	static const char * const damages[] = {
		"signature", "header", "jump-phys", "data"
	};
	const char *p = param("damage"), *damage = NULL;
	char dev[32], go[16];
	bool go_auto;
	int i, n, ret;

	for (i = 0; p && i < (int)(sizeof(damages) / sizeof(damages[0])); i++)
		if (!strcmp(p, damages[i]))
			damage = damages[i];
	if (p && !damage) {
		say("checker-error what=unknown-damage");
		power_off();
	}
	p = param("go");
	go_auto = p && !strcmp(p, "auto");
	if (p && !go_auto && strcmp(p, "wait")) {
		say("checker-error what=unknown-go");
		power_off();
	}

	report_layout("restore");
	set_cpus(param("offline_restore"), "0");
	if (read_file("/sys/block/vda/dev", dev, sizeof(dev)) <= 0) {
		say("checker-error what=no-swap-device");
		power_off();
	}
	if (strchr(dev, '\n'))
		*strchr(dev, '\n') = '\0';
	if (damage)
		damage_image(damage);
	say("ready-to-resume dev=%s", dev);
	if (!go_auto) {
		n = read(on_console ? 0 : proto_fd, go, sizeof(go) - 1);
		go[n > 0 ? n : 0] = '\0';
	}
	say("resuming");
	ret = write_file("/sys/power/resume", dev);
	/*
	 * Only reached when there was no image to restore, or the kernel
	 * refused or could not load it: this is a fresh boot.  The swap area
	 * must be usable again.
	 */
	say("no-image ret=%d", ret);
	mkswap_and_swapon();
	power_off();
}

/*
 * Load the modules /hiblab-modules lists, one path per line, in order; then
 * wait up to 30 s for the disk (a driver probes it asynchronously).
 */
static void load_modules(void)
{
	char list[1024], *path, *end;
	int fd, ret, waited = 0;

	if (read_file("/hiblab-modules", list, sizeof(list)) <= 0)
		return;
	for (path = list; *path; path = end) {
		end = strchr(path, '\n');
		if (end)
			*end++ = '\0';
		else
			end = path + strlen(path);
		if (!*path)
			continue;
		fd = open(path, O_RDONLY);
		ret = fd < 0 ? -errno :
		      my_syscall3(__NR_finit_module, fd, "", 0);
		if (fd >= 0)
			close(fd);
		say("module path=%s ret=%d", path, ret);
	}
	/* 6.12's nolibc has no access(). */
	while ((fd = open("/sys/block/vda", O_RDONLY)) < 0 && waited < 30000) {
		msleep(50);
		waited += 50;
	}
	if (fd >= 0)
		close(fd);
	say("disk dev=%s waited_ms=%d", SWAP_DEV, waited);
}

int main(void)
{
	bool bad_proto;
	const char *mode;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "size=64m");
	read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	mode = param("proto");
	on_console = mode && !strcmp(mode, "console");
	bad_proto = mode && !on_console && strcmp(mode, "uart");
	/* On the console, each line is one kernel log record, written once. */
	proto_fd = on_console ? open("/dev/kmsg", O_WRONLY) :
		   open(PROTO_TTY, O_RDWR | O_NOCTTY);
	if (proto_fd < 0)
		proto_fd = 1;

	mode = param("mode");
	say("hello mode=%s", mode ? mode : "none");
	if (bad_proto) {
		say("checker-error what=unknown-proto");
		power_off();
	}
	load_modules();
	if (mode && !strcmp(mode, "image"))
		image_boot();
	else if (mode && !strcmp(mode, "restore"))
		restore_boot();
	else if (mode && !strcmp(mode, "probe")) {
		say("probe-ok");
		power_off();
	}
	say("checker-error what=unknown-mode");
	power_off();
	return 0;
}
