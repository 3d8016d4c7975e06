/* The startup stub: which one runs on which machine, where it goes in the
   file, and how it is hooked.  */
#include <config.h>

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"
#include "layout.h"
#include "madvise_stub.h"
#include "sizes.h"
#include "stub_x86_64.h"

/* The generated stub leaves room for every field of the parameters.  */
_Static_assert (STUB_X86_64_SIZE - STUB_X86_64_PARAMS >= 8 * (5 + 3 * STUB_MAX_RANGES + 1),
		"stub/stub.ld reserves too little room for struct stub_params");

static const struct madvise_stub stubs[] = {
  { EM_X86_64, ELFCLASS64, "x86-64", stub_x86_64_code, STUB_X86_64_SIZE,
    STUB_X86_64_ENTRY, STUB_X86_64_PARAMS },
};

const struct madvise_stub *
stub_for_machine (unsigned e_machine, int elfclass)
{
  for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
    if (stubs[i].e_machine == e_machine && stubs[i].elfclass == elfclass)
      return &stubs[i];
  return NULL;
}

static uint64_t
align_up (uint64_t x, uint64_t a)
{
  return (x + a - 1) & ~(a - 1);
}

/* Whether the file carries an elfpmd stub already: its magic in the file
   contents of the last executable PT_LOAD.  */
static bool
stub_present (const struct elf_file *file)
{
  const GElf_Phdr *last = NULL;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_LOAD && (file->phdrs[i].p_flags & PF_X))
      last = &file->phdrs[i];
  if (last == NULL || last->p_filesz < 8 || last->p_filesz > (64 << 10))
    return false;
  unsigned char *buf = malloc (last->p_filesz);
  if (buf == NULL)
    return false;
  bool found = false;
  /* Any byte position: a tool that rewrote the file may have moved the
     segment to an offset that is not 8-aligned.  */
  if (pread (file->fd, buf, last->p_filesz, (off_t) last->p_offset) == (ssize_t) last->p_filesz)
    for (uint64_t at = 0; at + 8 <= last->p_filesz && !found; at++)
      {
	uint64_t v = 0;
	for (int k = 0; k < 8; k++)
	  v |= (uint64_t) buf[at + (uint64_t) k] << (8 * (file->data == ELFDATA2LSB ? k : 7 - k));
	found = v == STUB_MAGIC;
      }
  free (buf);
  return found;
}

/* A program header the new PT_LOAD can take over without losing anything:
   PT_NULL; a PT_NOTE that covers exactly what PT_GNU_PROPERTY covers (GNU ld
   emits both; the kernel and ld.so read PT_GNU_PROPERTY); or a shared
   object's PT_PHDR, which ld.so does not need (it finds the table in the
   PT_LOAD that holds it).  SIZE_MAX if there is none.  */
static size_t
reusable_slot (const struct elf_file *file)
{
  const GElf_Phdr *property = NULL;
  for (size_t i = 0; i < file->phnum; i++)
    if (file->phdrs[i].p_type == PT_GNU_PROPERTY)
      property = &file->phdrs[i];
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type == PT_NULL)
	return i;
      if (ph->p_type == PT_NOTE && property != NULL && ph->p_offset == property->p_offset
	  && ph->p_filesz == property->p_filesz && ph->p_vaddr == property->p_vaddr)
	return i;
    }
  if (file->kind == OBJECT_SHARED)
    for (size_t i = 0; i < file->phnum; i++)
      if (file->phdrs[i].p_type == PT_PHDR)
	return i;
  return SIZE_MAX;
}

/* Collect the PMD-aligned text ranges the stub works on: the whole chunks of
   the executable, read-only PT_LOADs that the output can map with PMD pages.  */
static void
collect_ranges (struct layout_plan *plan, const struct elf_file *file)
{
  struct stub_plan *sp = &plan->stub;
  uint64_t pmd = plan->opts.pmd;
  bool base_aligned = file->kind == OBJECT_EXECUTABLE || plan->new_max_align >= pmd;
  sp->params.nranges = 0;
  if (!base_aligned)
    return;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) || !(ph->p_flags & PF_X))
	continue;
      struct load_segment seg = elf_file_load (file, i);
      seg.offset = plan->segs[i].new_offset;
      uint64_t chunks = pmd_chunks_inside (&seg, pmd);
      if (!pmd_congruent (&seg, pmd) || chunks == 0)
	continue;
      uint64_t start = align_up (seg.vaddr, pmd);
      struct stub_range r = {
	.start = (int64_t) start, .length = chunks * pmd,
	.file_offset = seg.offset + (start - seg.vaddr),
      };
      /* Keep the largest ranges when there are more than the stub takes.  */
      size_t n = sp->params.nranges;
      if (n < STUB_MAX_RANGES)
	sp->params.range[sp->params.nranges++] = r;
      else
	for (size_t k = 0; k < n; k++)
	  if (sp->params.range[k].length < r.length)
	    {
	      sp->params.range[k] = r;
	      break;
	    }
    }
}

/* Choose the hook: e_entry for programs, DT_INIT for shared objects.  */
static int
choose_hook (struct layout_plan *plan, const struct elf_file *file, struct diag *err)
{
  struct stub_plan *sp = &plan->stub;
  if (file->kind != OBJECT_SHARED)
    {
      sp->hook = STUB_HOOK_ENTRY;
      sp->old_target = file->ehdr.e_entry;
      sp->params.flags = STUB_FLAG_EXE;
      return 0;
    }
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_DYNAMIC)
	continue;
      Elf_Data *data = elf_getdata_rawchunk (file->elf, (int64_t) ph->p_offset, ph->p_filesz,
					     ELF_T_DYN);
      if (data == NULL)
	return diag_set (err, "PT_DYNAMIC cannot be read: %s", elf_errmsg (-1));
      size_t entsize = gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT);
      size_t n = data->d_size / entsize;
      size_t first_null = SIZE_MAX;
      for (size_t k = 0; k < n; k++)
	{
	  GElf_Dyn dyn;
	  if (gelf_getdyn (data, (int) k, &dyn) == NULL)
	    break;
	  if (dyn.d_tag == DT_INIT && first_null == SIZE_MAX)
	    {
	      sp->hook = STUB_HOOK_INIT_CHAIN;
	      sp->old_target = dyn.d_un.d_val;
	      sp->dyn_offset = plan->segs[i].new_offset + k * entsize;
	      sp->dyn_old_offset = ph->p_offset + k * entsize;
	      return 0;
	    }
	  if (dyn.d_tag == DT_NULL)
	    {
	      if (first_null == SIZE_MAX)
		first_null = k;
	      else
		{
		  /* A spare slot: the first DT_NULL becomes DT_INIT, the
		     next one ends the array.  */
		  sp->hook = STUB_HOOK_INIT_NEW;
		  sp->old_target = 0;
		  sp->dyn_offset = plan->segs[i].new_offset + first_null * entsize;
		  sp->dyn_old_offset = ph->p_offset + first_null * entsize;
		  return 0;
		}
	    }
	}
      sp->refusal = "no DT_INIT to chain to and no spare .dynamic slot for one";
      return 0;
    }
  sp->refusal = "a shared object without PT_DYNAMIC cannot be hooked";
  return 0;
}

int
stub_plan_build (struct layout_plan *plan, const struct elf_file *file, struct diag *err)
{
  struct stub_plan *sp = &plan->stub;
  if (!sp->wanted || file->skip_reason != NULL)
    return 0;
  sp->stub = stub_for_machine (file->ehdr.e_machine, file->elfclass);
  if (sp->stub == NULL)
    {
      sp->refusal = "no startup stub for this machine yet";
      return 0;
    }
  if (stub_present (file))
    {
      sp->present = true;
      sp->refusal = "the file has an elfpmd stub already";
      return 0;
    }
  collect_ranges (plan, file);
  if (sp->params.nranges == 0)
    {
      sp->refusal = "no whole PMD chunk of text can be PMD-mapped, so the stub would do nothing";
      return 0;
    }
  sp->reuse_slot = reusable_slot (file);
  if (sp->reuse_slot == SIZE_MAX && file->phnum + 1 >= PN_XNUM)
    {
      sp->refusal = "the program header table is full";
      return 0;
    }
  if (choose_hook (plan, file, err) != 0)
    return -1;
  if (sp->refusal != NULL)
    return 0;

  /* The new segment: at the end of the file, above every segment, with
     address minus offset equal to the first PT_LOAD's (AT_PHDR).  */
  uint64_t page = plan->opts.page;
  const GElf_Phdr *first = NULL;
  size_t first_index = 0;
  uint64_t max_end = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      const GElf_Phdr *ph = &file->phdrs[i];
      if (ph->p_type != PT_LOAD)
	continue;
      if (first == NULL)
	{
	  first = ph;
	  first_index = i;
	}
      if (ph->p_vaddr + ph->p_memsz > max_end)
	max_end = ph->p_vaddr + ph->p_memsz;
      sp->new_load_index = i + 1;
    }
  uint64_t delta = first->p_vaddr - plan->segs[first_index].new_offset;
  if ((delta & (page - 1)) != 0)
    {
      sp->refusal = "the first PT_LOAD's address and offset differ by less than a page";
      return 0;
    }
  uint64_t vmin = align_up (max_end, page);
  sp->seg_offset = align_up (plan->new_size, page);
  if (sp->seg_offset + delta < vmin)
    sp->seg_offset = vmin - delta;
  sp->seg_vaddr = sp->seg_offset + delta;
  sp->new_phnum = sp->reuse_slot != SIZE_MAX ? file->phnum : file->phnum + 1;
  uint64_t table = sp->reuse_slot != SIZE_MAX ? 0
		   : (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  uint64_t code_at = align_up (table, 16);
  sp->seg_size = code_at + sp->stub->size;
  sp->code_offset = sp->seg_offset + code_at;
  sp->code_vaddr = sp->seg_vaddr + code_at;
  sp->entry_vaddr = sp->code_vaddr + sp->stub->entry;
  if (sp->seg_vaddr < vmin || sp->seg_vaddr + sp->seg_size < sp->seg_vaddr)
    return diag_set (err, "no address space left for the stub's segment");

  /* The section: only where the file has a plain section header table and
     a section name table to extend.  */
  size_t shstrndx;
  if (file->shnum != 0 && file->shnum + 2 < SHN_LORESERVE
      && elf_getshdrstrndx (file->elf, &shstrndx) == 0 && shstrndx != 0 && shstrndx < file->shnum
      && file->shdrs[shstrndx].sh_type == SHT_STRTAB)
    {
      const GElf_Shdr *names = &file->shdrs[shstrndx];
      sp->add_section = true;
      sp->new_shnum = file->shnum + (sp->reuse_slot != SIZE_MAX ? 1 : 2);
      sp->shstrtab_offset = sp->seg_offset + sp->seg_size;
      sp->shstrtab_size = names->sh_size + sizeof STUB_SECTION_NAME + sizeof STUB_PHDR_SECTION_NAME;
      sp->shdr_offset = align_up (sp->shstrtab_offset + sp->shstrtab_size, 8);
    }

  sp->params.target = sp->old_target != 0 ? (int64_t) (sp->old_target - sp->entry_vaddr) : 0;
  sp->params.magic = STUB_MAGIC;
  sp->params.pmd = plan->opts.pmd;
  sp->params.populate_max = plan->opts.populate_max;
  for (size_t k = 0; k < sp->params.nranges; k++)
    sp->params.range[k].start -= (int64_t) sp->entry_vaddr;
  sp->enabled = true;
  return 0;
}

void
stub_new_phdrs (const struct layout_plan *plan, const struct elf_file *file, GElf_Phdr *out)
{
  const struct stub_plan *sp = &plan->stub;
  GElf_Phdr load = {
    .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = sp->seg_offset,
    .p_vaddr = sp->seg_vaddr, .p_paddr = sp->seg_vaddr, .p_filesz = sp->seg_size,
    .p_memsz = sp->seg_size, .p_align = plan->opts.page,
  };
  if (sp->reuse_slot != SIZE_MAX)
    {
      /* The table keeps its size: drop the reused entry and put the new
	 PT_LOAD right after the last PT_LOAD, so the PT_LOADs stay sorted.  */
      size_t o = 0;
      for (size_t i = 0; i < file->phnum; i++)
	{
	  if (i != sp->reuse_slot)
	    out[o++] = layout_new_phdr (plan, file, i);
	  if (i + 1 == sp->new_load_index)
	    out[o++] = load;
	}
      return;
    }
  uint64_t table = (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  size_t o = 0;
  for (size_t i = 0; i < file->phnum; i++)
    {
      if (i == sp->new_load_index)
	out[o++] = load;
      GElf_Phdr ph = layout_new_phdr (plan, file, i);
      if (ph.p_type == PT_PHDR)
	{
	  ph.p_offset = sp->seg_offset;
	  ph.p_vaddr = ph.p_paddr = sp->seg_vaddr;
	  ph.p_filesz = ph.p_memsz = table;
	}
      out[o++] = ph;
    }
  if (sp->new_load_index == file->phnum)
    out[o++] = load;
}

void
stub_new_shdrs (const struct layout_plan *plan, const struct elf_file *file, GElf_Shdr *out)
{
  const struct stub_plan *sp = &plan->stub;
  size_t shstrndx = 0;
  elf_getshdrstrndx (file->elf, &shstrndx);
  for (size_t i = 0; i < file->shnum; i++)
    {
      out[i] = layout_new_shdr (plan, file, i);
      if (i == shstrndx)
	{
	  out[i].sh_offset = sp->shstrtab_offset;
	  out[i].sh_size = sp->shstrtab_size;
	}
    }
  /* Every byte of the new segment belongs to a section, so that strip and
     eu-strip, which lay files out by sections, keep it as it is.  */
  GElf_Word name = (GElf_Word) file->shdrs[shstrndx].sh_size;
  size_t k = file->shnum;
  if (sp->reuse_slot == SIZE_MAX)
    out[k++] = (GElf_Shdr) {
      .sh_name = name + (GElf_Word) sizeof STUB_SECTION_NAME, .sh_type = SHT_PROGBITS,
      .sh_flags = SHF_ALLOC, .sh_addr = sp->seg_vaddr, .sh_offset = sp->seg_offset,
      .sh_size = sp->code_offset - sp->seg_offset, .sh_addralign = 8,
    };
  out[k] = (GElf_Shdr) {
    .sh_name = name, .sh_type = SHT_PROGBITS,
    .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = sp->code_vaddr,
    .sh_offset = sp->code_offset, .sh_size = sp->stub->size, .sh_addralign = 16,
  };
}

/* Store V as 8 bytes in byte order DATA at P.  */
static void
put64 (unsigned char *p, uint64_t v, int data)
{
  for (int k = 0; k < 8; k++)
    p[data == ELFDATA2LSB ? k : 7 - k] = (unsigned char) (v >> (8 * k));
}

void
stub_segment_tail (const struct layout_plan *plan, const struct elf_file *file,
		   unsigned char *seg)
{
  const struct stub_plan *sp = &plan->stub;
  unsigned char *code = seg + (sp->code_offset - sp->seg_offset);
  memcpy (code, sp->stub->code, sp->stub->size);
  unsigned char *p = code + sp->stub->params;
  const struct stub_params *v = &sp->params;
  put64 (p + 0, (uint64_t) v->target, file->data);
  put64 (p + 8, v->magic, file->data);
  put64 (p + 16, v->flags, file->data);
  put64 (p + 24, v->pmd, file->data);
  put64 (p + 32, v->nranges, file->data);
  for (size_t k = 0; k < STUB_MAX_RANGES; k++)
    {
      put64 (p + 40 + 24 * k, (uint64_t) v->range[k].start, file->data);
      put64 (p + 48 + 24 * k, v->range[k].length, file->data);
      put64 (p + 56 + 24 * k, v->range[k].file_offset, file->data);
    }
  put64 (p + 40 + 24 * STUB_MAX_RANGES, v->populate_max, file->data);
}
