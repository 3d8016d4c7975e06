/* elfpmd: align read-only ELF segments so that their text can be mapped with
   PMD-sized pages.  The command line; everything else is in the library.  */
#include <config.h>

#include <argp.h>
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "batch.h"
#include "process.h"
#include "stub_params.h"
#include "sizes.h"
#include "map.h"
#include "prime.h"
#include "status.h"

/* Long-only options.  */
enum
{
  OPT_JSON = 0x100,
  OPT_RULE,
  OPT_PMD_SIZE,
  OPT_PAGE_SIZE,
  OPT_NO_SYNC,
  OPT_NO_PAD,
  OPT_MADVISE,
  OPT_POPULATE_MAX,
  OPT_COPY_MAX,
  OPT_EXCLUDE,
  OPT_NO_DEFAULT_EXCLUDES,
  OPT_HOT,
};

static const struct argp_option options[] = {
  { NULL, 0, NULL, 0, "Output:", 1 },
  { "output", 'o', "FILE", 0, "Write the result to FILE instead of rewriting the input (one input only)", 0 },
  { "dry-run", 'n', NULL, 0, "Print the full report, write nothing", 0 },
  { "check", 0, NULL, OPTION_ALIAS, NULL, 0 },
  { "no-sync", OPT_NO_SYNC, NULL, 0, "Do not fsync the new file before and after renaming it", 0 },

  { "preserve-dates", 'p', NULL, 0,
    "The rewritten file keeps the input's access and modification times", 0 },

  { NULL, 0, NULL, 0, "Many files:", 2 },
  { "recursive", 'r', NULL, 0,
    "Walk each DIR (never following symbolic links), processing the ELF executables and "
    "shared objects in it and counting the other files as skipped", 0 },
  { "files-from", 'T', "LIST", 0,
    "Process the names in LIST ('-': standard input), one per line, as -r treats what it "
    "finds", 0 },
  { "null", '0', NULL, 0, "Names in LIST end with a NUL byte, not a newline", 0 },
  { "exclude", OPT_EXCLUDE, "PATTERN", 0,
    "Skip files and directories matching the shell PATTERN: its base name, or with a '/' "
    "in PATTERN its whole path (repeatable)", 0 },
  { "no-default-excludes", OPT_NO_DEFAULT_EXCLUDES, NULL, 0,
    "Walk also directories named usr/lib/debug and .build-id, which -r leaves out", 0 },
  { "jobs", 'j', "N", 0, "Process N files at once (default: the CPUs this process may use)", 0 },

  { NULL, 0, NULL, 0, "Alignment:", 3 },
  { "rule", OPT_RULE, "RULE", 0,
    "Which segments to align: 'relaxed' (default: read-only, congruent, holding a whole PMD chunk) "
    "or 'kernel' (exactly the rule of the Linux patch)", 0 },
  { "no-pad", OPT_NO_PAD, NULL, 0,
    "Never move file contents: only raise p_align where the offset is already congruent", 0 },
  { "pmd-size", OPT_PMD_SIZE, "SIZE", 0,
    "Align to SIZE (e.g. 2M) instead of the PMD size of the file's machine", 0 },
  { "page-size", OPT_PAGE_SIZE, "SIZE", 0,
    "Base page size of the target kernel (e.g. 64K, from 4K to 256K), when the "
    "machine has several", 0 },

  { "madvise", OPT_MADVISE, "copy", OPTION_ARG_OPTIONAL,
    "Inject a startup stub that gets the aligned text onto huge pages at run time "
    "(x86-64, aarch64, riscv64).  With =copy, where the kernel cannot give the file "
    "huge page cache folios (ext4 before Linux 6.16, xfs before 5.18), the stub copies "
    "the text into anonymous huge pages instead (a private copy per process)", 0 },
  { "copy-max", OPT_COPY_MAX, "SIZE", 0,
    "With --madvise=copy: copy at most SIZE bytes of text per object (whole chunks; "
    "default: all the aligned text)", 0 },
  { "populate-max", OPT_POPULATE_MAX, "CHUNKS", 0,
    "With --madvise: at every start the stub looks at text ranges of at most CHUNKS "
    "PMD-sized chunks whole (default 64); larger ranges are sampled, and looked at whole "
    "only when the sample finds chunks cached in small pages", 0 },

  { NULL, 0, NULL, 0, "Report:", 4 },
  { "json", OPT_JSON, NULL, 0, "Print the report as JSON, one object per file per line", 0 },
  { "verbose", 'v', NULL, 0, "Print the full report also when rewriting", 0 },
  { "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char doc[] =
  "Align eligible read-only PT_LOAD segments of ELF executables and shared "
  "objects to the PMD size, so that Linux can map their text with huge pages."
  "\v"
  "Each FILE is rewritten in place, atomically: a temporary file beside it is "
  "written, synced and renamed over it; owner, mode and extended attributes "
  "are kept.  Addresses never change; where a read-only segment's file offset "
  "is not congruent with its address, a hole is inserted before it.\n\n"
  "With -r or --files-from (a batch run), what is no ELF executable or shared "
  "object (scripts, archives, relocatable objects, debug files, symbolic links) "
  "is skipped quietly and counted in a summary line at the end.  In any run, "
  "names of one file (hard links) are processed once, and afterwards every "
  "one of them in the run names the rewritten file.\n\n"
  "Safe as root over trees others can write: every operation goes through a "
  "directory held open, a symbolic link is followed only when it is root's or "
  "the running user's (never in a walk), only regular files are opened, and "
  "a name swapped meanwhile is reported and left alone (elfpmd(1), RUNNING AS "
  "ROOT).  In --json, a name that is not valid UTF-8 also comes as its bytes "
  "in hexadecimal (file_hex).\n\n"
  "Verbs (each with its own --help): 'elfpmd status [PID...]' shows which "
  "running programs have their text on PMD pages; 'elfpmd prime FILE...' "
  "reads aligned text into the page cache as PMD-sized folios without "
  "running it; 'elfpmd map FILE' shows which functions lie in whole PMD "
  "chunks.  A file named like a verb is ./status.\n\n"
  "SIZE is a number (decimal, 0x hexadecimal; a leading 0 is still decimal) "
  "optionally followed by K, M, G, T (powers of 1024), e.g. 4K, 64K, 2M, "
  "0x200000.\n\n"
  "--page-size takes a power of two from 4K to 256K (the page sizes Linux "
  "has), --pmd-size a power of two of at least 4K and at least the page "
  "size.\n\n"
  "Exit status:\n"
  "  0   every file was processed: changed, already aligned, nothing eligible,\n"
  "      or skipped (relocatable objects, core files, files without PT_LOAD\n"
  "      segments, separate debug files; in a batch run also files that are\n"
  "      not ELF, symbolic links and machines without a known PMD size)\n"
  "  1   at least one file failed (one line on stderr names it and the\n"
  "      reason); each failed file is left untouched and the others are still\n"
  "      processed\n"
  "  64  usage error: unknown or conflicting options, a bad size, no FILE";

struct cmdline
{
  struct run_options run;
  struct batch_options batch;
  bool verbose, quiet, json;
  bool seen_rule, seen_pmd, seen_page, seen_populate, seen_jobs;
  const char **excludes;
  size_t nexcludes;
  char **files;
  int nfiles;
};

/* The base page sizes Linux has (4K almost everywhere, 8K sparc64, 16K and
   64K arm64 and loongarch64, 32K mips, 256K hexagon and ppc44x).  A PMD is
   at least one page.  */
#define PAGE_SIZE_MIN ((uint64_t) 4 << 10)
#define PAGE_SIZE_MAX ((uint64_t) 256 << 10)

/* ARG of OPTION as a power of two from MIN to MAX (0: no maximum), or a usage
   error.  */
static uint64_t
size_argument (struct argp_state *state, const char *option, const char *arg,
	       uint64_t min, uint64_t max)
{
  uint64_t size;
  const char *why = parse_size (arg, &size);
  if (why != NULL)
    argp_error (state, "%s: invalid size '%s': %s", option, arg, why);
  if (!is_power_of_2 (size))
    argp_error (state, "%s: %s is not a power of two", option, arg);
  if (size < min || (max != 0 && size > max))
    {
      char lo[32], hi[32];
      format_size (min, lo, sizeof lo);
      if (max != 0)
	argp_error (state, "%s: %s is outside %s to %s, the page sizes Linux has",
		    option, arg, lo, format_size (max, hi, sizeof hi));
      else
	argp_error (state, "%s: %s is smaller than %s, the smallest page size",
		    option, arg, lo);
    }
  return size;
}

/* STATUS, or 1 when the report on standard output could not be written
   (a full disk, a closed pipe): said on standard error.  */
static int
report_flushed (int status)
{
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "elfpmd: cannot write the report\n");
      return 1;
    }
  return status;
}

/* --files-from=ARG into *LIST, refused when given twice or empty.  */
static void
files_from_argument (struct argp_state *state, const char **list, const char *arg)
{
  if (*list != NULL)
    argp_error (state, "--files-from given twice");
  if (*arg == '\0')
    argp_error (state, "--files-from needs a file name ('-' for standard input)");
  *list = arg;
}

static error_t
parse_opt (int key, char *arg, struct argp_state *state)
{
  struct cmdline *c = state->input;
  switch (key)
    {
    case 'o':
      if (c->run.output != NULL)
	argp_error (state, "--output given twice");
      if (*arg == '\0')
	argp_error (state, "--output needs a file name");
      c->run.output = arg;
      break;
    case 'n':
      c->run.dry_run = true;
      break;
    case OPT_NO_SYNC:
      c->run.sync = false;
      break;
    case OPT_MADVISE:
      if (c->run.stub.wanted)
	argp_error (state, "--madvise given twice");
      c->run.stub.wanted = true;
      if (arg != NULL && strcmp (arg, "copy") == 0)
	c->run.stub.copy = true;
      else if (arg != NULL)
	argp_error (state, "--madvise: unknown value '%s' (only --madvise or --madvise=copy)", arg);
      break;
    case OPT_COPY_MAX:
      {
	if (c->run.stub.copy_max != 0)
	  argp_error (state, "--copy-max given twice");
	const char *why = parse_size (arg, &c->run.stub.copy_max);
	if (why != NULL)
	  argp_error (state, "--copy-max: invalid size '%s': %s", arg, why);
	if (c->run.stub.copy_max == 0)
	  argp_error (state, "--copy-max: the size must be more than 0");
      }
      break;
    case OPT_NO_PAD:
      c->run.pad = false;
      break;
    case OPT_RULE:
      if (c->seen_rule)
	argp_error (state, "--rule given twice");
      c->seen_rule = true;
      if (strcmp (arg, "relaxed") == 0)
	c->run.rule = ALIGN_RULE_RELAXED;
      else if (strcmp (arg, "kernel") == 0)
	c->run.rule = ALIGN_RULE_KERNEL;
      else
	argp_error (state, "--rule must be 'kernel' or 'relaxed', not '%s'", arg);
      break;
    case OPT_PMD_SIZE:
      if (c->seen_pmd)
	argp_error (state, "--pmd-size given twice");
      c->seen_pmd = true;
      c->run.pmd_size = size_argument (state, "--pmd-size", arg, PAGE_SIZE_MIN, 0);
      break;
    case OPT_PAGE_SIZE:
      if (c->seen_page)
	argp_error (state, "--page-size given twice");
      c->seen_page = true;
      c->run.page_size = size_argument (state, "--page-size", arg, PAGE_SIZE_MIN,
					PAGE_SIZE_MAX);
      break;
    case OPT_POPULATE_MAX:
      {
	if (c->seen_populate)
	  argp_error (state, "--populate-max given twice");
	c->seen_populate = true;
	char *end;
	errno = 0;
	unsigned long long v = strtoull (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v > STUB_POPULATE_LIMIT)
	  argp_error (state, "--populate-max: '%s' is not a number of chunks from 0 to %d",
		      arg, STUB_POPULATE_LIMIT);
	c->run.stub.populate_max = v;
      }
      break;
    case 'p':
      c->run.preserve_dates = true;
      break;
    case 'r':
      c->batch.recursive = true;
      break;
    case 'T':
      files_from_argument (state, &c->batch.files_from, arg);
      break;
    case '0':
      c->batch.null = true;
      break;
    case OPT_EXCLUDE:
      {
	if (*arg == '\0')
	  argp_error (state, "--exclude needs a pattern");
	const char **e = realloc (c->excludes, (c->nexcludes + 1) * sizeof *e);
	if (e == NULL)
	  argp_failure (state, 1, ENOMEM, "--exclude");
	e[c->nexcludes++] = arg;
	c->excludes = e;
      }
      break;
    case OPT_NO_DEFAULT_EXCLUDES:
      c->batch.default_excludes = false;
      break;
    case 'j':
      {
	if (c->seen_jobs)
	  argp_error (state, "--jobs given twice");
	c->seen_jobs = true;
	char *end;
	errno = 0;
	unsigned long v = strtoul (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || v < 1 || v > 1024)
	  argp_error (state, "--jobs: '%s' is not a number from 1 to 1024", arg);
	c->batch.jobs = (unsigned) v;
      }
      break;
    case OPT_JSON:
      c->json = true;
      break;
    case 'v':
      c->verbose = true;
      break;
    case 'q':
      c->quiet = true;
      break;
    case ARGP_KEY_ARGS:
      c->files = state->argv + state->next;
      c->nfiles = state->argc - state->next;
      break;
    case ARGP_KEY_NO_ARGS:
      if (c->batch.files_from == NULL)
	argp_error (state, c->batch.recursive ? "no DIR given" : "no FILE given");
      break;
    case ARGP_KEY_SUCCESS:
      if (c->verbose && c->quiet)
	argp_error (state, "--verbose and --quiet exclude each other");
      if (c->json && c->quiet)
	argp_error (state, "--json and --quiet exclude each other");
      if (c->run.output != NULL && (c->batch.recursive || c->batch.files_from != NULL))
	argp_error (state, "--output takes one input FILE, not -r or --files-from");
      if (c->run.output != NULL && c->nfiles != 1)
	argp_error (state, "--output takes exactly one input FILE");
      if (c->batch.null && c->batch.files_from == NULL)
	argp_error (state, "--null needs --files-from");
      if (c->nexcludes != 0 && !c->batch.recursive && c->batch.files_from == NULL)
	argp_error (state, "--exclude needs -r or --files-from");
      if (!c->batch.default_excludes && !c->batch.recursive)
	argp_error (state, "--no-default-excludes needs -r");
      if (c->run.output != NULL && c->run.dry_run)
	argp_error (state, "--output and --dry-run exclude each other");
      if (c->seen_populate && !c->run.stub.wanted)
	argp_error (state, "--populate-max needs --madvise");
      if (c->run.stub.copy_max != 0 && !c->run.stub.copy)
	argp_error (state, "--copy-max needs --madvise=copy");
      if (c->run.pmd_size != 0 && c->run.page_size != 0 && c->run.pmd_size < c->run.page_size)
	argp_error (state, "--pmd-size is smaller than --page-size");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

/* elfpmd status.  */
static const struct argp_option status_options[] = {
  { "json", OPT_JSON, NULL, 0, "One JSON object per process, then a summary object", 0 },
  { "quiet", 'q', NULL, 0, "Print the summary line only", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char status_doc[] =
  "Show, for each process (default: every process this user can read) and "
  "each mapped ELF object whose text holds a whole PMD chunk or would once "
  "aligned, how much of its text the kernel maps with PMD pages now."
  "\v"
  "Columns: TEXT, the object's executable mappings; PMD/WHOLE, the whole PMD "
  "chunks among them that are mapped with PMD pages (FilePmdMapped) and all "
  "of them (address and file offset PMD-aligned); PMD-kB, FilePmdMapped; "
  "ANON-kB, AnonHugePages of those mappings; ALIGNED, yes when elfpmd would "
  "change nothing, else no and the whole chunks aligning would add (no,+N); "
  "STUB, whether the file carries elfpmd's startup stub; '?' when the file "
  "could not be read (the reason follows the path).  The PMD size is the "
  "running kernel's.  Anonymous executable memory on huge pages (text copied "
  "there, as remap libraries do) gets a line of its own per process.  "
  "Processes that cannot be read (other users', without privilege) are "
  "counted in the summary and skipped.\n\n"
  "Exit status:\n"
  "  0   the report was printed\n"
  "  1   a PID named could not be read (no such process, no permission), or\n"
  "      the kernel has no transparent huge pages\n"
  "  64  usage error";

struct status_cmdline
{
  struct status_options opts;
  long *pids;
  size_t npids;
};

static error_t
parse_status_opt (int key, char *arg, struct argp_state *state)
{
  struct status_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case 'q':
      c->opts.quiet = true;
      break;
    case ARGP_KEY_ARG:
      {
	char *end;
	errno = 0;
	long pid = strtol (arg, &end, 10);
	if (*arg < '0' || *arg > '9' || *end != '\0' || errno != 0 || pid <= 0)
	  argp_error (state, "'%s' is not a process ID", arg);
	long *grown = realloc (c->pids, (c->npids + 1) * sizeof *grown);
	if (grown == NULL)
	  argp_failure (state, 1, ENOMEM, "status");
	c->pids = grown;
	c->pids[c->npids++] = pid;
	break;
      }
    case ARGP_KEY_END:
      if (c->opts.json && c->opts.quiet)
	argp_error (state, "--json and --quiet are exclusive");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* elfpmd prime.  */
static const struct argp_option prime_options[] = {
  { "json", OPT_JSON, NULL, 0, "One JSON object per file", 0 },
  { "quiet", 'q', NULL, 0, "Print nothing but errors", 0 },
  { "files-from", 'T', "LIST", 0,
    "Prime also the names in LIST ('-': standard input), one per line; empty lines and "
    "lines starting with '#' are no names", 0 },
  { "null", '0', NULL, 0, "Names in LIST end with a NUL byte, not a newline", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char prime_doc[] =
  "Put the aligned text of each FILE into the page cache as PMD-sized folios, "
  "without running it, so that the next start maps its text with PMD pages "
  "at once."
  "\v"
  "Each whole PMD chunk of text (the running kernel's PMD size, at a "
  "PMD-aligned address and file offset: the file must be aligned, by elfpmd "
  "or its linker) is read as one PMD-sized folio; a chunk the page cache holds "
  "in small folios is written back, dropped and read again.  Pages a running "
  "program maps stay as they are.  Where the kernel or the file system gives "
  "the file no PMD-sized folios (ext4 before Linux 6.16, tmpfs), or "
  "transparent huge pages are off, the report says so.  Needs no privilege "
  "beyond reading FILE.\n\n"
  "A name in LIST that does not exist (a package removed since the list was "
  "made), is a symbolic link or no regular file, or is not ELF is skipped "
  "(a missing one with a line of its own) and counted in a summary line at "
  "the end; what it names is not an error.\n\n"
  "Exit status:\n"
  "  0   every FILE was read: primed, or the report says why not\n"
  "  1   a FILE, an ELF file of LIST or LIST itself could not be read (one line\n"
  "      on stderr names it and the reason)\n"
  "  64  usage error";

struct prime_cmdline
{
  struct prime_options opts;
  char **files;
  size_t nfiles;
};

static error_t
parse_prime_opt (int key, char *arg, struct argp_state *state)
{
  struct prime_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case 'q':
      c->opts.quiet = true;
      break;
    case 'T':
      files_from_argument (state, &c->opts.files_from, arg);
      break;
    case '0':
      c->opts.null = true;
      break;
    case ARGP_KEY_ARG:
      c->files = &state->argv[state->next - 1];
      c->nfiles = (size_t) (state->argc - state->next + 1);
      state->next = state->argc;
      break;
    case ARGP_KEY_END:
      if (c->nfiles == 0 && c->opts.files_from == NULL)
	argp_error (state, "no FILE and no --files-from");
      if (c->opts.json && c->opts.quiet)
	argp_error (state, "--json and --quiet are exclusive");
      if (c->opts.null && c->opts.files_from == NULL)
	argp_error (state, "--null needs --files-from");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

/* elfpmd map.  */
static const struct argp_option map_options[] = {
  { "hot", OPT_HOT, "FILE", 0,
    "Weigh the hot code in FILE, lines 'ADDRESS-or-SYMBOL WEIGHT', against the whole chunks", 0 },
  { "json", OPT_JSON, NULL, 0, "One JSON object", 0 },
  { "pmd-size", OPT_PMD_SIZE, "SIZE", 0,
    "Chunks of SIZE (e.g. 2M) instead of the PMD size of the file's machine", 0 },
  { "page-size", OPT_PAGE_SIZE, "SIZE", 0,
    "Base page size of the target kernel (e.g. 64K), when the machine has several", 0 },
  { NULL, 0, NULL, 0, NULL, 0 }
};

static const char map_doc[] =
  "Show which compilation units and functions lie in each whole PMD chunk of "
  "FILE's text (the only text the kernel can map with PMD pages) and which "
  "stay outside, on small pages, at the head and tail of each executable "
  "segment."
  "\v"
  "The chunks are those of the file as elfpmd would align it (as it is, when "
  "it is aligned already; the header says which).  Names come from DWARF in "
  "FILE, else in its separate debug file (by build ID under /usr/lib/debug/"
  ".build-id, then by .gnu_debuglink beside FILE, in its .debug directory and "
  "under /usr/lib/debug; ELFPMD_DEBUG_ROOT replaces /usr/lib/debug), else from "
  ".symtab (FILE's, then the debug file's), else .dynsym.  A function across "
  "a chunk boundary counts on each side with its bytes there.\n\n"
  "--hot FILE: one 'ADDRESS-or-SYMBOL WEIGHT' per line (ADDRESS 0x-hexadecimal, "
  "as the file's symbols have it; SYMBOL a function name, optionally "
  "+0xOFFSET; WEIGHT a number, a trailing % allowed; '#' starts a comment "
  "line), for example from\n"
  "  perf report --stdio --no-children -q --no-demangle --dsos=FILE \\\n"
  "    --sort sym -F overhead,sym | awk '$2 == \"[.]\" { print $3, $1 }'\n"
  "The report adds the weight in whole chunks and its share of all.\n\n"
  "Exit status:\n"
  "  0   the map was printed\n"
  "  1   FILE or the --hot file could not be read, or a --hot line is bad\n"
  "      (one line on stderr names the file, the line and the reason)\n"
  "  64  usage error";

struct map_cmdline
{
  struct map_options opts;
  const char *file;
  bool seen_pmd, seen_page;
};

static error_t
parse_map_opt (int key, char *arg, struct argp_state *state)
{
  struct map_cmdline *c = state->input;
  switch (key)
    {
    case OPT_JSON:
      c->opts.json = true;
      break;
    case OPT_HOT:
      if (c->opts.hot != NULL)
	argp_error (state, "--hot given twice");
      if (*arg == '\0')
	argp_error (state, "--hot needs a file name");
      c->opts.hot = arg;
      break;
    case OPT_PMD_SIZE:
      if (c->seen_pmd)
	argp_error (state, "--pmd-size given twice");
      c->seen_pmd = true;
      c->opts.pmd_size = size_argument (state, "--pmd-size", arg, PAGE_SIZE_MIN, 0);
      break;
    case OPT_PAGE_SIZE:
      if (c->seen_page)
	argp_error (state, "--page-size given twice");
      c->seen_page = true;
      c->opts.page_size = size_argument (state, "--page-size", arg, PAGE_SIZE_MIN, PAGE_SIZE_MAX);
      break;
    case ARGP_KEY_ARG:
      if (c->file != NULL)
	argp_error (state, "one FILE only");
      c->file = arg;
      break;
    case ARGP_KEY_END:
      if (c->file == NULL)
	argp_error (state, "no FILE");
      if (c->opts.pmd_size != 0 && c->opts.page_size != 0 && c->opts.pmd_size < c->opts.page_size)
	argp_error (state, "--pmd-size is smaller than --page-size");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

static int
map_command (int argc, char **argv)
{
  struct map_cmdline c = { .opts = { .debug_root = "/usr/lib/debug" } };
  /* Tests and unusual installations keep debug files elsewhere.  */
  const char *root = getenv ("ELFPMD_DEBUG_ROOT");
  if (root != NULL && *root != '\0')
    c.opts.debug_root = root;
  const char *no_dwarf = getenv ("ELFPMD_MAP_NO_DWARF");
  c.opts.no_dwarf = no_dwarf != NULL && *no_dwarf != '\0';
  const struct argp argp = { map_options, parse_map_opt, "FILE", map_doc, NULL, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = map_run (c.file, &c.opts, stdout, stderr);
  return report_flushed (status);
}

static int
prime_command (int argc, char **argv)
{
  struct prime_cmdline c = { .opts = { .json = false } };
  const struct argp argp = { prime_options, parse_prime_opt, "FILE...\n--files-from=LIST [FILE...]", prime_doc,
			     NULL, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = prime_run (c.files, c.nfiles, &c.opts, stdout, stderr);
  return report_flushed (status);
}

static int
status_command (int argc, char **argv)
{
  struct status_cmdline c = { .opts = { .proc = "/proc" } };
  const struct argp argp = { status_options, parse_status_opt, "[PID...]", status_doc,
			     NULL, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;
  int status = status_run (c.pids, c.npids, &c.opts, stdout, stderr);
  free (c.pids);
  return report_flushed (status);
}

int
main (int argc, char **argv)
{
  argp_err_exit_status = EX_USAGE;
  elf_version (EV_CURRENT);
  /* A verb first; a file of that name is still ./status.  */
  static const struct
  {
    const char *name, *usage_name;
    int (*command) (int argc, char **argv);
  } verbs[] = {
    { "status", "elfpmd status", status_command },
    { "prime", "elfpmd prime", prime_command },
    { "map", "elfpmd map", map_command },
  };
  for (size_t v = 0; argc >= 2 && v < sizeof verbs / sizeof verbs[0]; v++)
    if (strcmp (argv[1], verbs[v].name) == 0)
      {
	/* argp names the program by argv[0]: "elfpmd status: ...".  */
	argv[1] = (char *) verbs[v].usage_name;
	return verbs[v].command (argc - 1, argv + 1);
      }
  struct cmdline c = { .run = { .rule = ALIGN_RULE_RELAXED, .sync = true, .pad = true,
				  .stub = { .populate_max = STUB_POPULATE_DEFAULT } },
		       .batch = { .default_excludes = true } };
  const struct argp argp = { options, parse_opt,
			     "FILE...\n-r DIR...\n--files-from=LIST [FILE...]\nstatus [PID...]\nprime [--files-from=LIST] FILE...\nmap [--hot=FILE] [--json] FILE", doc,
			     NULL, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;

  c.run.format = c.json ? REPORT_JSON
		 : c.quiet ? REPORT_NONE
		 : (c.verbose || c.run.dry_run) ? REPORT_FULL : REPORT_SUMMARY;

  c.run.batch = c.batch.recursive || c.batch.files_from != NULL;
  c.batch.excludes = c.excludes;
  c.batch.nexcludes = c.nexcludes;

  struct batch_counts counts;
  int status = batch_run (c.files, c.files == NULL ? 0 : (size_t) c.nfiles, &c.batch, &c.run,
			  stdout, stderr, &counts);
  free (c.excludes);
  return report_flushed (status);
}
