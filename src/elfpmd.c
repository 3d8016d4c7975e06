/* elfpmd: align read-only ELF segments so that their text can be mapped with
   PMD-sized pages.  The command line; everything else is in the library.  */
#include <config.h>

#include <argp.h>
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "process.h"
#include "stub_params.h"
#include "sizes.h"

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
};

static const struct argp_option options[] = {
  { NULL, 0, NULL, 0, "Output:", 1 },
  { "output", 'o', "FILE", 0, "Write the result to FILE instead of rewriting the input (one input only)", 0 },
  { "dry-run", 'n', NULL, 0, "Print the full report, write nothing", 0 },
  { "check", 0, NULL, OPTION_ALIAS, NULL, 0 },
  { "no-sync", OPT_NO_SYNC, NULL, 0, "Do not fsync the new file before and after renaming it", 0 },

  { NULL, 0, NULL, 0, "Alignment:", 2 },
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

  { "madvise", OPT_MADVISE, NULL, 0,
    "Inject a startup stub that gets the aligned text onto huge pages at run time "
    "(x86-64 so far)", 0 },
  { "populate-max", OPT_POPULATE_MAX, "CHUNKS", 0,
    "With --madvise: at every start the stub populates text ranges of at most CHUNKS "
    "PMD-sized chunks whole (default 64); larger ranges are sampled, and populated whole "
    "only when the sample finds chunks cached in small pages", 0 },

  { NULL, 0, NULL, 0, "Report:", 3 },
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
  "SIZE is a number (decimal, 0x hexadecimal; a leading 0 is still decimal) "
  "optionally followed by K, M, G, T (powers of 1024), e.g. 4K, 64K, 2M, "
  "0x200000.\n\n"
  "--page-size takes a power of two from 4K to 256K (the page sizes Linux "
  "has), --pmd-size a power of two of at least 4K and at least the page "
  "size.\n\n"
  "Exit status:\n"
  "  0   every file was processed: changed, already aligned, nothing eligible,\n"
  "      or skipped (relocatable objects, core files, files without PT_LOAD\n"
  "      segments, separate debug files)\n"
  "  1   at least one file failed (one line on stderr names it and the\n"
  "      reason); each failed file is left untouched and the others are still\n"
  "      processed\n"
  "  64  usage error: unknown or conflicting options, a bad size, no FILE";

struct cmdline
{
  struct run_options run;
  bool verbose, quiet, json;
  bool seen_rule, seen_pmd, seen_page, seen_populate;
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
      c->run.madvise = true;
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
	c->run.populate_max = v;
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
      argp_error (state, "no FILE given");
      break;
    case ARGP_KEY_SUCCESS:
      if (c->verbose && c->quiet)
	argp_error (state, "--verbose and --quiet exclude each other");
      if (c->json && c->quiet)
	argp_error (state, "--json and --quiet exclude each other");
      if (c->run.output != NULL && c->nfiles != 1)
	argp_error (state, "--output takes exactly one input FILE");
      if (c->run.output != NULL && c->run.dry_run)
	argp_error (state, "--output and --dry-run exclude each other");
      if (c->seen_populate && !c->run.madvise)
	argp_error (state, "--populate-max needs --madvise");
      if (c->run.pmd_size != 0 && c->run.page_size != 0 && c->run.pmd_size < c->run.page_size)
	argp_error (state, "--pmd-size is smaller than --page-size");
      break;
    default:
      return ARGP_ERR_UNKNOWN;
    }
  return 0;
}

const char *argp_program_version = PACKAGE_NAME " " PACKAGE_VERSION;

int
main (int argc, char **argv)
{
  argp_err_exit_status = EX_USAGE;
  struct cmdline c = { .run = { .rule = ALIGN_RULE_RELAXED, .sync = true, .pad = true,
				  .populate_max = STUB_POPULATE_DEFAULT } };
  const struct argp argp = { options, parse_opt, "FILE...", doc, NULL, NULL, NULL };
  if (argp_parse (&argp, argc, argv, 0, NULL, &c) != 0)
    return EX_USAGE;

  c.run.format = c.json ? REPORT_JSON
		 : c.quiet ? REPORT_NONE
		 : (c.verbose || c.run.dry_run) ? REPORT_FULL : REPORT_SUMMARY;

  elf_version (EV_CURRENT);
  int status = 0;
  for (int i = 0; i < c.nfiles; i++)
    status |= process_file (c.files[i], &c.run, stdout, stderr);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      fprintf (stderr, "elfpmd: cannot write the report\n");
      status = 1;
    }
  return status;
}
