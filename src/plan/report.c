/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The per-file report.  */
#include <config.h>

#include <inttypes.h>
#include <string.h>

#include "machine.h"
#include "report.h"
#include "sizes.h"
#include "utf8.h"

enum file_status
report_file_status (const struct file_report *r)
{
  if (r->error != NULL)
    return STATUS_ERROR;
  if (r->file == NULL || r->plan == NULL || r->file->skip_reason != NULL)
    return STATUS_SKIPPED;
  if (r->plan->changed)
    return r->dry_run ? STATUS_WOULD_CHANGE : STATUS_CHANGED;
  if (r->plan->layout.refused != 0)
    return STATUS_PADDING_REFUSED;
  if (r->plan->layout.need_padding != 0)
    return STATUS_NEEDS_PADDING;
  for (size_t i = 0; i < r->file->phnum; i++)
    if (r->file->phdrs[i].p_type == PT_LOAD && r->plan->layout.segs[i].chosen == RULE_ALREADY_ALIGNED)
      return STATUS_ALREADY_ALIGNED;
  return STATUS_NOTHING_ELIGIBLE;
}

static const char *const status_names[STATUS_KINDS][2] = {
  [STATUS_CHANGED] = { "changed", "changed" },
  [STATUS_WOULD_CHANGE] = { "would change", "would_change" },
  [STATUS_ALREADY_ALIGNED] = { "already aligned", "already_aligned" },
  [STATUS_PADDING_REFUSED] = { "padding refused", "padding_refused" },
  [STATUS_NEEDS_PADDING] = { "needs padding", "needs_padding" },
  [STATUS_NOTHING_ELIGIBLE] = { "nothing eligible", "nothing_eligible" },
  [STATUS_SKIPPED] = { "skipped", "skipped" },
  [STATUS_ERROR] = { "error", "failed" },
};

const char *
file_status_name (enum file_status status)
{
  return status < STATUS_KINDS ? status_names[status][0] : "unknown";
}

const char *
file_status_key (enum file_status status)
{
  return status < STATUS_KINDS ? status_names[status][1] : "unknown";
}

const char *
report_status (const struct file_report *r)
{
  return file_status_name (report_file_status (r));
}

const char *
report_ima (const struct file_report *r, char *buf, size_t len)
{
  if (r->ima == NULL)
    return NULL;
  if (r->ima->action == IMA_REFUSED)
    return "refused";
  if (r->ima->action != IMA_REHASH || r->error != NULL || (!r->has_written && !r->dry_run))
    return NULL;
  snprintf (buf, len, "%s-%s", r->has_written ? "rehashed" : "would-rehash", r->ima->alg);
  return buf;
}

static const char *
flags_string (uint32_t flags, char buf[4])
{
  buf[0] = (flags & PF_R) ? 'R' : '-';
  buf[1] = (flags & PF_W) ? 'W' : '-';
  buf[2] = (flags & PF_X) ? 'X' : '-';
  buf[3] = '\0';
  return buf;
}

static const char *
class_name (int elfclass)
{
  return elfclass == ELFCLASS32 ? "ELF32" : "ELF64";
}

static const char *
byte_order_name (int data)
{
  return data == ELFDATA2MSB ? "big-endian" : "little-endian";
}

static const char *
rule_name (enum align_rule rule)
{
  return rule == ALIGN_RULE_KERNEL ? "kernel" : "relaxed";
}

/* Whether R's plan raises p_align of a fixed-address program (ET_EXEC)
   and adds no stub: the kernel maps such a program at its link addresses
   and never reads p_align, so the new alignment alone changes nothing at
   run time (padding that makes offsets congruent does: the page cache's
   huge folios can then be mapped whole).  */
static bool
alignment_without_effect (const struct file_report *r)
{
  return r->file->kind == OBJECT_EXECUTABLE && r->plan->layout.aligned != 0
	 && !r->plan->stub.enabled;
}

void
report_summary (FILE *out, const struct file_report *r)
{
  const char *status = report_status (r);
  if (r->error != NULL)
    return;			/* The driver prints errors to stderr.  */
  fprintf (out, "%s: %s", r->name, status);
  if (r->file->skip_reason != NULL)
    fprintf (out, " (%s)", r->file->skip_reason);
  else
    {
      char pmd[32];
      /* A dry run speaks in the conditional.  */
      const char *would = r->dry_run && !r->has_written ? "would be " : "";
      fprintf (out, ": %zu of %zu PT_LOADs %saligned to %s; PMD-mappable chunks %" PRIu64
	       " -> %" PRIu64, r->plan->layout.aligned, r->file->nloads, would,
	       format_size (r->pmd, pmd, sizeof pmd), r->plan->layout.chunks_before,
	       r->plan->layout.chunks_after);
      if (r->plan->layout.aslr_bits_lost != 0)
	fprintf (out, "; load base %s %u random bits", *would != '\0' ? "would lose" : "loses",
		 r->plan->layout.aslr_bits_lost);
      if (r->plan->layout.padded != 0)
	fprintf (out, "; %zu %smoved by %" PRIu64 " bytes of padding", r->plan->layout.padded, would,
		 r->plan->layout.new_size - r->plan->layout.old_size);
      if (r->plan->layout.need_padding != 0)
	fprintf (out, "; %zu segment%s need%s padding (--no-pad)", r->plan->layout.need_padding,
		 r->plan->layout.need_padding == 1 ? "" : "s", r->plan->layout.need_padding == 1 ? "s" : "");
      if (r->plan->layout.refused != 0)
	fprintf (out, "; padding refused for %zu segment%s", r->plan->layout.refused,
		 r->plan->layout.refused == 1 ? "" : "s");
      if (r->plan->stub.enabled)
	fprintf (out, "; startup stub %shooked through %s", would,
		 stub_hook_name (r->plan->stub.hook));
      else if (r->plan->stub.wanted)
	fprintf (out, "; no startup stub: %s", r->plan->stub.refusal);
      char buf[48];
      if (report_ima (r, buf, sizeof buf) != NULL)
	fprintf (out, "; IMA hash (security.ima, %s) %s", r->ima->alg,
		 r->has_written ? "renewed" : "would be renewed");
      if (alignment_without_effect (r))
	fputs ("; fixed-address program (ET_EXEC): p_align has no run-time effect, --madvise or "
	       "'elfpmd prime' gets its text onto huge pages", out);
    }
  fputc ('\n', out);
}

/* LEN bytes at P in lowercase hexadecimal to OUT.  */
static void
put_hex (FILE *out, const unsigned char *p, size_t len)
{
  for (size_t i = 0; i < len; i++)
    fprintf (out, "%02x", p[i]);
}

/* The build-id line of the full report of R: before and after, and why
   they differ or not.  Nothing for a file without one.  */
static void
report_build_id_text (FILE *out, const struct file_report *r)
{
  const struct plan_build_id *b = &r->plan->build_id;
  if (b->notes == 0)
    return;
  fputs ("  build-id ", out);
  if (b->len == 0)
    fprintf (out, "of more than %d bytes", BUILD_ID_MAX);
  else
    put_hex (out, b->before, b->len);
  if (b->derived)
    {
      fputs (" -> ", out);
      put_hex (out, b->after, b->len);
      fputs (" (derived from the old one and the changes", out);
      if (b->notes > 1)
	fprintf (out, "; each of its %zu notes its own", b->notes);
      fputc (')', out);
    }
  else
    {
      fputs (r->plan->changed ? " kept (--build-id=keep: the original's debug files carry it too)"
	     : " kept: the file does not change", out);
      if (b->notes > 1)
	fprintf (out, "; %zu build-id notes", b->notes);
    }
  fputc ('\n', out);
}

static void
report_stub_text (FILE *out, const struct file_report *r)
{
  const struct stub_plan *sp = &r->plan->stub;
  if (!sp->enabled)
    {
      fprintf (out, "  startup stub: not injected: %s\n", sp->refusal);
      return;
    }
  fprintf (out, "  startup stub (%s, %zu bytes): new PT_LOAD at offset %#" PRIx64 ", address %#" PRIx64
	   ", hooked through %s; works on %" PRIu64 " chunk%s in %" PRIu64 " range%s\n",
	   sp->stub->name, sp->stub->size, sp->seg_offset, sp->seg_vaddr, stub_hook_name (sp->hook),
	   stub_chunks (sp), stub_chunks (sp) == 1 ? "" : "s", (uint64_t) sp->params.nranges,
	   sp->params.nranges == 1 ? "" : "s");
  if (sp->add_debugdata || sp->add_symtab)
    fprintf (out, "  the stub's %zu symbols (%s...) %s, for debuggers and crash reports\n",
	     sp->stub->nsymbols, STUB_SYMBOL_PREFIX "stub_main",
	     !sp->add_symtab ? "in a new .gnu_debugdata"
	     : sp->add_debugdata ? "in the symbol table and in a new .gnu_debugdata"
	     : "in the symbol table");
  if (stub_sampled_chunks (sp) != 0)
    fprintf (out, "  %" PRIu64 " of the chunks are in ranges longer than --populate-max=%" PRIu64
	     ": the stub samples them and populates them whole only when the sample finds small pages\n",
	     stub_sampled_chunks (sp), sp->params.populate_max);
  if (sp->params.flags & STUB_FLAG_COPY)
    {
      char max[32];
      fprintf (out, "  --madvise=copy: where the kernel cannot give the file huge page cache folios, "
	       "the stub copies up to %s of text (%" PRIu64 " chunk%s) into anonymous huge pages, "
	       "a private copy in each process\n",
	       format_size (stub_copy_max (sp), max, sizeof max), stub_copy_max (sp) / sp->params.pmd,
	       stub_copy_max (sp) / sp->params.pmd == 1 ? "" : "s");
    }
  if (sp->room.kind == ROOM_GROWN)
    {
      fprintf (out, "  the program header table grew in place by one entry");
      for (size_t k = 0; k < sp->room.nmoved; k++)
	{
	  char buf[32];
	  fprintf (out, "%s%s", k == 0 ? "; moved into the stub's segment: " : ", ",
		   room_moved_name (&sp->room.moved[k], r->file, buf, sizeof buf));
	}
      if (sp->room.nmoved != 0)
	fprintf (out, " (%" PRIu64 " bytes)", sp->room.moved_end - sp->room.moved_start);
      if (sp->room.nsyms_moved != 0)
	fprintf (out, "; %zu symbol%s follow%s", sp->room.nsyms_moved, sp->room.nsyms_moved == 1 ? "" : "s",
		 sp->room.nsyms_moved == 1 ? "s" : "");
      fputc ('\n', out);
    }
  if (sp->room.kind == ROOM_MOVED)
    fprintf (out, "  the program header table moved into the stub's segment (no entry could go, "
	     "nothing after it could move): GNU strip breaks such a file, eu-strip does not; "
	     "strip before elfpmd\n");
}

void
report_text (FILE *out, const struct file_report *r)
{
  if (r->error != NULL)
    return;
  const struct elf_file *f = r->file;
  const struct rewrite_plan *rp = r->plan;
  const struct layout_plan *p = &rp->layout;
  char pmd[32], page[32];
  fprintf (out, "%s: %s %s %s, %s%s\n", r->name, machine_name (f->ehdr.e_machine, f->elfclass),
	   class_name (f->elfclass), byte_order_name (f->data), object_kind_name (f->kind),
	   f->kind == OBJECT_OTHER ? "" : f->has_interp ? " (dynamic)" : " (no interpreter)");
  if (f->skip_reason != NULL)
    {
      fprintf (out, "  skipped: %s\n", f->skip_reason);
      return;
    }
  fprintf (out, "  PMD size %s (%s), page size %s, rule %s\n", format_size (r->pmd, pmd, sizeof pmd),
	   r->pmd_source, format_size (r->page, page, sizeof page), rule_name (r->rule));
  fprintf (out, "  %3s %-3s %18s %18s %18s %10s %10s  %-10s %s\n", "idx", "flg", "offset",
	   "vaddr", "filesz", "align", "new align", "kernel", "relaxed");
  for (size_t i = 0; i < f->phnum; i++)
    {
      const GElf_Phdr *ph = &f->phdrs[i];
      if (ph->p_type != PT_LOAD)
	continue;
      const struct segment_plan *sp = &p->segs[i];
      char flags[4];
      /* The kernel column reads as the file will be (as "new align" does):
	 a segment aligned to the PMD size, by this run or before, is one
	 a patched kernel has nothing more to do for.  */
      bool aligned = sp->new_align >= r->pmd;
      fprintf (out, "  %3zu %-3s %#18" PRIx64 " %#18" PRIx64 " %#18" PRIx64 " %#10" PRIx64
	       " %#10" PRIx64 "  %-10s %s\n", i, flags_string (ph->p_flags, flags),
	       (uint64_t) ph->p_offset, (uint64_t) ph->p_vaddr, (uint64_t) ph->p_filesz,
	       (uint64_t) ph->p_align, sp->new_align,
	       aligned ? "aligned" : sp->kernel == RULE_ELIGIBLE ? "yes" : "no",
	       sp->relaxed == RULE_ELIGIBLE ? "yes" : "no");
      if (sp->kernel != RULE_ELIGIBLE && !aligned)
	fprintf (out, "      kernel rule: %s\n", rule_verdict_string (sp->kernel));
      if (sp->relaxed != RULE_ELIGIBLE)
	fprintf (out, "      relaxed rule: %s\n", rule_verdict_string (sp->relaxed));
      if (sp->action == SEGMENT_PADDED)
	fprintf (out, "      moved to offset %#" PRIx64 " by %#" PRIx64 " bytes of padding (a hole)\n",
		 sp->new_offset, sp->padding);
      else if (sp->padding != 0)
	fprintf (out, "      moved to offset %#" PRIx64 " by %#" PRIx64 " bytes of padding to stay congruent\n",
		 sp->new_offset, sp->padding);
      else if (sp->new_offset != ph->p_offset)
	fprintf (out, "      moved to offset %#" PRIx64 " with the padding before it\n", sp->new_offset);
      if (sp->action == SEGMENT_PADDING_REFUSED)
	fprintf (out, "      padding refused: %s\n", sp->refusal);
      else if (sp->action == SEGMENT_NEEDS_PADDING)
	fprintf (out, "      not padded (--no-pad)\n");
    }
  fprintf (out, "  PMD-mappable chunks of text: %" PRIu64 " before, %" PRIu64 " after\n",
	   p->chunks_before, p->chunks_after);
  if (f->kind == OBJECT_EXECUTABLE)
    fprintf (out, "  load address fixed (ET_EXEC): no address-space randomisation to lose\n");
  if (alignment_without_effect (r))
    fprintf (out, "  fixed-address program: the kernel maps it at its link addresses and never "
	     "reads p_align, so the new alignment has no run-time effect%s; --madvise (the "
	     "startup stub) or 'elfpmd prime FILE' gets its text onto huge pages\n",
	     p->padded != 0 ? " (the padding has: it makes the offsets congruent)" : "");
  else
    fprintf (out, "  load base alignment %s -> %s: %u bits of address-space randomisation lost\n",
	     format_size (p->old_max_align > r->page ? p->old_max_align : r->page, pmd, sizeof pmd),
	     format_size (p->new_max_align > r->page ? p->new_max_align : r->page, page, sizeof page),
	     p->aslr_bits_lost);
  fprintf (out, "  file size %" PRIu64 " -> %" PRIu64 " bytes", rp->old_size,
	   rp->changed ? rp->tables.size : rp->old_size);
  if (r->has_written)
    fprintf (out, ", allocated %" PRIu64 " -> %" PRIu64 " bytes", r->written.allocated_before,
	     r->written.allocated_after);
  fputc ('\n', out);
  char ima[48];
  if (report_ima (r, ima, sizeof ima) != NULL)
    fprintf (out, "  IMA hash (security.ima, %s, type 0x%02x): %s for the new contents\n",
	     r->ima->alg, r->ima->type, r->has_written ? "renewed" : "would be renewed");
  report_build_id_text (out, r);
  if (rp->stub.wanted)
    report_stub_text (out, r);
  fprintf (out, "  result: %s\n", report_status (r));
}

void
json_string (FILE *out, const char *s)
{
  fputc ('"', out);
  for (const unsigned char *c = (const unsigned char *) s; *c != '\0'; c++)
    {
      if (*c == '"' || *c == '\\')
	fprintf (out, "\\%c", *c);
      else if (*c == '\n')
	fputs ("\\n", out);
      else if (*c == '\t')
	fputs ("\\t", out);
      else if (*c < 0x20 || *c == 0x7f)
	fprintf (out, "\\u%04x", *c);
      else if (*c >= 0x80)
	{
	  /* A valid UTF-8 sequence as it is; any other byte (a file name is
	     bytes) as U+FFFD, so the output stays UTF-8 and parses, and no
	     byte reads as a character it is not (json_name gives the bytes).  */
	  size_t n = utf8_length (c);
	  if (n == 0)
	    fputs ("\\ufffd", out);
	  else
	    {
	      fwrite (c, 1, n, out);
	      c += n - 1;
	    }
	}
      else
	fputc (*c, out);
    }
  fputc ('"', out);
}

void
json_name (FILE *out, const char *key, const char *name)
{
  fprintf (out, "\"%s\":", key);
  json_string (out, name);
  bool valid = true;
  for (const unsigned char *c = (const unsigned char *) name; *c != '\0' && valid;)
    {
      size_t n = utf8_length (c);
      valid = n != 0;
      c += n;
    }
  if (valid)
    return;
  fprintf (out, ",\"%s_hex\":\"", key);
  for (const unsigned char *c = (const unsigned char *) name; *c != '\0'; c++)
    fprintf (out, "%02x", *c);
  fputc ('"', out);
}

static void
json_key_string (FILE *out, const char *key, const char *value)
{
  fprintf (out, ",\"%s\":", key);
  json_string (out, value);
}

static void
json_segment (FILE *out, const struct elf_file *f, const struct layout_plan *p, size_t i)
{
  const GElf_Phdr *ph = &f->phdrs[i];
  const struct segment_plan *sp = &p->segs[i];
  char flags[4];
  fprintf (out, "{\"index\":%zu,\"flags\":\"%s\",\"offset\":%" PRIu64 ",\"vaddr\":%" PRIu64
	   ",\"filesz\":%" PRIu64 ",\"memsz\":%" PRIu64 ",\"align\":%" PRIu64
	   ",\"new_offset\":%" PRIu64 ",\"new_align\":%" PRIu64, i, flags_string (ph->p_flags, flags),
	   (uint64_t) ph->p_offset, (uint64_t) ph->p_vaddr, (uint64_t) ph->p_filesz,
	   (uint64_t) ph->p_memsz, (uint64_t) ph->p_align, sp->new_offset, sp->new_align);
  fprintf (out, ",\"kernel_rule\":%s", sp->kernel == RULE_ELIGIBLE ? "true" : "false");
  json_key_string (out, "kernel_reason", rule_verdict_id (sp->kernel));
  fprintf (out, ",\"relaxed_rule\":%s", sp->relaxed == RULE_ELIGIBLE ? "true" : "false");
  json_key_string (out, "relaxed_reason", rule_verdict_id (sp->relaxed));
  json_key_string (out, "reason", rule_verdict_string (sp->chosen));
  json_key_string (out, "action", segment_action_name (sp->action));
  fprintf (out, ",\"padding\":%" PRIu64, sp->padding);
  if (sp->refusal != NULL)
    json_key_string (out, "padding_refused", sp->refusal);
  fputc ('}', out);
}

/* The "stub" object of R's report: the stub SP injected, or why not.  */
static void
json_stub (FILE *out, const struct file_report *r, const struct stub_plan *sp)
{
  fprintf (out, ",\"stub\":{\"injected\":%s", sp->enabled ? "true" : "false");
  if (sp->enabled)
    {
      json_key_string (out, "arch", sp->stub->name);
      json_key_string (out, "hook", stub_hook_name (sp->hook));
      fprintf (out, ",\"table_moved\":%s,\"table_grown\":%s,\"moved\":[",
	       sp->room.kind == ROOM_MOVED ? "true" : "false",
	       sp->room.kind == ROOM_GROWN ? "true" : "false");
      for (size_t k = 0; k < sp->room.nmoved && sp->room.kind == ROOM_GROWN; k++)
	{
	  char buf[32];
	  if (k != 0)
	    fputc (',', out);
	  json_string (out, room_moved_name (&sp->room.moved[k], r->file, buf, sizeof buf));
	}
      bool grown = sp->room.kind == ROOM_GROWN;
      fprintf (out, "],\"moved_bytes\":%" PRIu64 ",\"moved_symbols\":%zu",
	       grown ? sp->room.moved_end - sp->room.moved_start : 0, grown ? sp->room.nsyms_moved : 0);
      fprintf (out, ",\"segment_offset\":%" PRIu64 ",\"segment_vaddr\":%" PRIu64
	       ",\"size\":%" PRIu64 ",\"entry\":%" PRIu64 ",\"ranges\":%" PRIu64
	       ",\"chunks\":%" PRIu64, sp->seg_offset, sp->seg_vaddr, sp->seg_size,
	       sp->entry_vaddr, (uint64_t) sp->params.nranges, stub_chunks (sp));
      fprintf (out, ",\"populate_max\":%" PRIu64 ",\"sampled_chunks\":%" PRIu64,
	       sp->params.populate_max, stub_sampled_chunks (sp));
      fprintf (out, ",\"copy\":%s,\"copy_max\":%" PRIu64,
	       (sp->params.flags & STUB_FLAG_COPY) ? "true" : "false", stub_copy_max (sp));
      fprintf (out, ",\"symbols\":%zu",
	       sp->add_debugdata || sp->add_symtab ? sp->stub->nsymbols : 0);
    }
  else
    {
      fprintf (out, ",\"present\":%s,\"no_stub_for_machine\":%s", sp->present ? "true" : "false",
	       sp->no_arch ? "true" : "false");
      json_key_string (out, "reason", sp->refusal);
    }
  fputc ('}', out);
}

void
report_json (FILE *out, const struct file_report *r)
{
  fputc ('{', out);
  json_name (out, "file", r->name);
  json_key_string (out, "status", report_status (r));
  char ima[48];
  if (r->error != NULL)
    {
      json_key_string (out, "error", r->error);
      const char *what = report_ima (r, ima, sizeof ima);
      if (what != NULL)
	json_key_string (out, "ima", what);
      fputs (",\"changed\":false}\n", out);
      return;
    }
  const struct elf_file *f = r->file;
  const struct rewrite_plan *rp = r->plan;
  const struct layout_plan *p = &rp->layout;
  json_key_string (out, "machine", machine_name (f->ehdr.e_machine, f->elfclass));
  json_key_string (out, "class", class_name (f->elfclass));
  json_key_string (out, "byte_order", byte_order_name (f->data));
  json_key_string (out, "type", object_kind_name (f->kind));
  fprintf (out, ",\"interp\":%s", f->has_interp ? "true" : "false");
  if (f->skip_reason != NULL)
    {
      json_key_string (out, "skip_reason", f->skip_reason);
      fputs (",\"changed\":false}\n", out);
      return;
    }
  fprintf (out, ",\"pmd_size\":%" PRIu64, r->pmd);
  json_key_string (out, "pmd_source", r->pmd_source);
  fprintf (out, ",\"page_size\":%" PRIu64, r->page);
  json_key_string (out, "rule", rule_name (r->rule));
  fprintf (out, ",\"dry_run\":%s,\"changed\":%s", r->dry_run ? "true" : "false",
	   rp->changed ? "true" : "false");
  /* (ET_EXEC: the kernel ignores p_align; see alignment_without_effect) */
  fprintf (out, ",\"fixed_address\":%s", f->kind == OBJECT_EXECUTABLE ? "true" : "false");
  fputs (",\"segments\":[", out);
  bool first = true;
  for (size_t i = 0; i < f->phnum; i++)
    if (f->phdrs[i].p_type == PT_LOAD)
      {
	if (!first)
	  fputc (',', out);
	first = false;
	json_segment (out, f, p, i);
      }
  fprintf (out, "],\"holes\":%zu,\"aligned_segments\":%zu,\"padded_segments\":%zu"
	   ",\"segments_needing_padding\":%zu,\"padding_refused\":%zu"
	   ",\"pmd_chunks_before\":%" PRIu64 ",\"pmd_chunks_after\":%" PRIu64
	   ",\"load_align_before\":%" PRIu64 ",\"load_align_after\":%" PRIu64
	   ",\"aslr_bits_lost\":%u,\"size_before\":%" PRIu64 ",\"size_after\":%" PRIu64,
	   p->ninserts, p->aligned, p->padded, p->need_padding, p->refused, p->chunks_before, p->chunks_after,
	   p->old_max_align, p->new_max_align, p->aslr_bits_lost, rp->old_size,
	   rp->changed ? rp->tables.size : rp->old_size);
  if (r->has_written)
    fprintf (out, ",\"allocated_before\":%" PRIu64 ",\"allocated_after\":%" PRIu64,
	     r->written.allocated_before, r->written.allocated_after);
  const char *what = report_ima (r, ima, sizeof ima);
  if (what != NULL)
    json_key_string (out, "ima", what);
  if (rp->build_id.len != 0)
    {
      fputs (",\"build_id_before\":\"", out);
      put_hex (out, rp->build_id.before, rp->build_id.len);
      fputs ("\",\"build_id_after\":\"", out);
      put_hex (out, rp->build_id.after, rp->build_id.len);
      fputc ('"', out);
    }
  if (rp->stub.wanted)
    json_stub (out, r, &rp->stub);
  fputs ("}\n", out);
}
