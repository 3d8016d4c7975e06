/* Applying a layout plan.

   The output is assembled in a temporary file in the target's directory:
   the input's byte ranges are copied to their mapped offsets (padding stays
   a hole), the header tables are re-encoded from the plan, ownership, mode
   and extended attributes are carried over, the result is read back and
   checked against the plan, and only then renamed over the target.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_SYS_XATTR_H
# include <sys/xattr.h>
#endif

#include "write.h"

/* How much the copy hands to the kernel at once, and after how much newly
   written data it starts writeback, so that the final fsync has less to wait for.  */
#define COPY_CHUNK ((size_t) 64 << 20)
#define COPY_ALIGN ((uint64_t) 4096)

struct output
{
  char *tmp_path;
  int fd;
};

/* Copy LEN bytes at IN_OFF of IN to OUT_OFF of OUT with read and write.  */
static int
copy_with_read_write (int in, int out, uint64_t in_off, uint64_t out_off, uint64_t len,
		      struct diag *err)
{
  size_t bufsize = (size_t) 1 << 20;
  char *buf = malloc (bufsize);
  if (buf == NULL)
    return diag_set (err, "out of memory");
  while (len > 0)
    {
      size_t want = len < bufsize ? (size_t) len : bufsize;
      ssize_t n = pread (in, buf, want, (off_t) in_off);
      if (n < 0 && errno == EINTR)
	continue;
      if (n <= 0)
	{
	  free (buf);
	  return diag_set (err, n == 0 ? "file shrank while being read" : "read failed: %s",
			   strerror (errno));
	}
      for (ssize_t done = 0; done < n;)
	{
	  ssize_t w = pwrite (out, buf + done, (size_t) (n - done), (off_t) (out_off + (uint64_t) done));
	  if (w < 0 && errno == EINTR)
	    continue;
	  if (w <= 0)
	    {
	      free (buf);
	      return diag_set (err, "write failed: %s", w == 0 ? "no progress" : strerror (errno));
	    }
	  done += w;
	}
      in_off += (uint64_t) n;
      out_off += (uint64_t) n;
      len -= (uint64_t) n;
    }
  free (buf);
  return 0;
}

/* A pipe for splice, sized so that the kernel moves whole runs of pages:
   copy_file_range's own pipe is small, and with padding the output offsets
   are shifted against the input's large folios, which made it half again as
   slow as cp; through a 1 MiB pipe a shifted copy costs what cp costs.  */
static int splice_pipe[2] = { -1, -1 };
static bool no_splice;

/* Move up to LEN bytes at IN_OFF of IN to OUT_OFF of OUT through the splice
   pipe.  Return the bytes moved, 0 at the input's end, or -1 with errno set.  */
static ssize_t
splice_some (int in, int out, uint64_t in_off, uint64_t out_off, size_t len)
{
  if (splice_pipe[0] < 0)
    {
      if (pipe2 (splice_pipe, O_CLOEXEC) != 0)
	return -1;
      fcntl (splice_pipe[1], F_SETPIPE_SZ, 1 << 20);
    }
  int size = fcntl (splice_pipe[1], F_GETPIPE_SZ);
  if (size > 0 && len > (size_t) size)
    len = (size_t) size;
  loff_t ioff = (loff_t) in_off, ooff = (loff_t) out_off;
  ssize_t n = splice (in, &ioff, splice_pipe[1], NULL, len, SPLICE_F_MOVE);
  if (n <= 0)
    return n;
  for (ssize_t done = 0; done < n;)
    {
      ssize_t w = splice (splice_pipe[0], NULL, out, &ooff, (size_t) (n - done), SPLICE_F_MOVE);
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	{
	  /* The pipe holds data that belongs nowhere now: drop the pipe.  */
	  int saved = w == 0 ? EIO : errno;
	  close (splice_pipe[0]);
	  close (splice_pipe[1]);
	  splice_pipe[0] = splice_pipe[1] = -1;
	  errno = saved;
	  return -1;
	}
      done += w;
    }
  return n;
}

/* Copy LEN bytes at IN_OFF of IN to OUT_OFF of OUT, in the kernel where it can.  */
static int
copy_range (int in, int out, uint64_t in_off, uint64_t out_off, uint64_t len, bool sync,
	    struct diag *err)
{
  static bool no_copy_file_range;
  uint64_t since_writeback = 0, writeback_from = out_off;
  while (len > 0)
    {
      size_t want = len < COPY_CHUNK ? (size_t) len : COPY_CHUNK;
      /* Start at a page boundary of the input after a short first piece:
	 the kernel copies whole pages much faster than straddling ones.  */
      uint64_t misalign = in_off & (COPY_ALIGN - 1);
      if (misalign != 0 && want > COPY_ALIGN - misalign)
	want = (size_t) (COPY_ALIGN - misalign);
      ssize_t n = -1;
      if (!no_splice)
	{
	  n = splice_some (in, out, in_off, out_off, want);
	  if (n < 0 && errno == EINTR)
	    continue;
	  if (n == 0)
	    return diag_set (err, "file shrank while being read");
	  if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP
			|| errno == EBADF || errno == EPERM || errno == EMFILE || errno == ENFILE))
	    no_splice = true;
	  else if (n < 0)
	    return diag_set (err, "copy failed: %s", strerror (errno));
	}
#ifdef HAVE_COPY_FILE_RANGE
      if (n < 0 && !no_copy_file_range)
	{
	  off_t ioff = (off_t) in_off, ooff = (off_t) out_off;
	  n = copy_file_range (in, &ioff, out, &ooff, want, 0);
	  if (n < 0 && errno == EINTR)
	    continue;
	  if (n < 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP
			|| errno == EINVAL || errno == EBADF || errno == EPERM))
	    no_copy_file_range = true;
	  else if (n < 0)
	    return diag_set (err, "copy failed: %s", strerror (errno));
	  else if (n == 0)
	    return diag_set (err, "file shrank while being read");
	}
#endif
      if (n < 0)
	{
	  if (copy_with_read_write (in, out, in_off, out_off, want, err) != 0)
	    return -1;
	  n = (ssize_t) want;
	}
      in_off += (uint64_t) n;
      out_off += (uint64_t) n;
      len -= (uint64_t) n;
      since_writeback += (uint64_t) n;
#ifdef HAVE_SYNC_FILE_RANGE
      if (sync && since_writeback >= COPY_CHUNK)
	{
	  /* Start writeback now; the fsync at the end then overlaps with the copy.  */
	  sync_file_range (out, (off_t) writeback_from, (off_t) since_writeback,
			   SYNC_FILE_RANGE_WRITE);
	  writeback_from = out_off;
	  since_writeback = 0;
	}
#endif
    }
  return 0;
}

/* Copy [START, END) of the input to OUT at TO, leaving the input's holes
   holes in the output: a file elfpmd padded before stays sparse.  */
static int
copy_data (int in, int out, uint64_t start, uint64_t end, uint64_t to, bool sync,
	   struct diag *err)
{
  uint64_t pos = start;
  while (pos < end)
    {
      off_t data = lseek (in, (off_t) pos, SEEK_DATA);
      if (data < 0 && errno == ENXIO)
	return 0;		/* only a hole is left */
      if (data < 0)		/* no hole support here: copy everything */
	return copy_range (in, out, pos, to + (pos - start), end - pos, sync, err);
      if ((uint64_t) data >= end)
	return 0;
      off_t hole = lseek (in, data, SEEK_HOLE);
      uint64_t stop = hole < 0 || (uint64_t) hole > end ? end : (uint64_t) hole;
      if (copy_range (in, out, (uint64_t) data, to + ((uint64_t) data - start),
		      stop - (uint64_t) data, sync, err) != 0)
	return -1;
      pos = stop;
    }
  return 0;
}

/* Copy every byte of the input to its mapped offset.  */
static int
copy_contents (const struct elf_file *file, const struct layout_plan *plan, int out,
	       bool sync, struct diag *err)
{
  uint64_t start = 0;
  for (size_t k = 0; k <= plan->ninserts; k++)
    {
      uint64_t end = k < plan->ninserts ? plan->inserts[k].at : plan->old_size;
      if (end > start
	  && copy_data (file->fd, out, start, end, layout_map_offset (plan, start), sync, err) != 0)
	return -1;
      start = end;
    }
  if (ftruncate (out, (off_t) plan->new_size) != 0)
    return diag_set (err, "cannot set the output size: %s", strerror (errno));
  return 0;
}

/* Encode COUNT native records of TYPE at SRC in the file's class and byte
   order, and write them at OFFSET of OUT.  SRC is an array of Elf32_* or
   Elf64_* records matching the file's class.  */
static int
write_records (const struct elf_file *file, int out, Elf_Type type, void *src,
	       size_t count, uint64_t offset, struct diag *err)
{
  size_t fsize = gelf_fsize (file->elf, type, count, EV_CURRENT);
  size_t msize = file->elfclass == ELFCLASS32 ? elf32_fsize (type, count, EV_CURRENT)
					      : elf64_fsize (type, count, EV_CURRENT);
  void *buf = malloc (fsize != 0 ? fsize : 1);
  if (buf == NULL)
    return diag_set (err, "out of memory");
  /* The in-memory and file record sizes are equal for these types; only
     the byte order may differ.  */
  Elf_Data s = { .d_buf = src, .d_type = type, .d_size = msize, .d_version = EV_CURRENT };
  Elf_Data d = { .d_buf = buf, .d_type = type, .d_size = fsize, .d_version = EV_CURRENT };
  if (gelf_xlatetof (file->elf, &d, &s, (unsigned) file->data) == NULL)
    {
      free (buf);
      return diag_set (err, "cannot encode headers: %s", elf_errmsg (-1));
    }
  int ret = 0;
  for (size_t done = 0; done < d.d_size;)
    {
      ssize_t w = pwrite (out, (char *) buf + done, d.d_size - done, (off_t) (offset + done));
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	{
	  ret = diag_set (err, "cannot write headers: %s", w == 0 ? "no progress" : strerror (errno));
	  break;
	}
      done += (size_t) w;
    }
  free (buf);
  return ret;
}

/* Write the program header table as PLAN has it.  */
static int
write_phdrs (const struct elf_file *file, const struct layout_plan *plan, int out,
	     struct diag *err)
{
  size_t n = layout_new_phnum (plan, file);
  void *table = calloc (n, file->elfclass == ELFCLASS32 ? sizeof (Elf32_Phdr) : sizeof (Elf64_Phdr));
  GElf_Phdr *phdrs = calloc (n, sizeof *phdrs);
  if (table == NULL || phdrs == NULL)
    {
      free (table);
      free (phdrs);
      return diag_set (err, "out of memory");
    }
  layout_new_phdr_table (plan, file, phdrs);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Phdr ph = phdrs[i];
      if (file->elfclass == ELFCLASS32)
	((Elf32_Phdr *) table)[i] = (Elf32_Phdr) {
	  .p_type = ph.p_type, .p_flags = ph.p_flags,
	  .p_offset = (Elf32_Off) ph.p_offset, .p_vaddr = (Elf32_Addr) ph.p_vaddr,
	  .p_paddr = (Elf32_Addr) ph.p_paddr, .p_filesz = (Elf32_Word) ph.p_filesz,
	  .p_memsz = (Elf32_Word) ph.p_memsz, .p_align = (Elf32_Word) ph.p_align,
	};
      else
	((Elf64_Phdr *) table)[i] = ph;
    }
  int ret = write_records (file, out, ELF_T_PHDR, table, n, plan->new_phoff, err);
  free (table);
  free (phdrs);
  return ret;
}

/* Write the dynamic entry TAG, VALUE at OFFSET of OUT.  */
static int
write_dyn (const struct elf_file *file, int out, int64_t tag, uint64_t value, uint64_t offset,
	   struct diag *err)
{
  if (file->elfclass == ELFCLASS32)
    {
      Elf32_Dyn d32 = { .d_tag = (Elf32_Sword) tag, .d_un.d_val = (Elf32_Word) value };
      return write_records (file, out, ELF_T_DYN, &d32, 1, offset, err);
    }
  GElf_Dyn dyn = { .d_tag = tag, .d_un.d_val = value };
  return write_records (file, out, ELF_T_DYN, &dyn, 1, offset, err);
}

/* The symbols of PLAN->stub.symtab_index defined in moved sections, with
   st_value moved as their section moved.  */
static int
write_moved_symbols (const struct elf_file *file, const struct layout_plan *plan, int out,
		     struct diag *err)
{
  const struct stub_plan *sp = &plan->stub;
  const GElf_Shdr *sh = &file->shdrs[sp->symtab_index];
  Elf_Data *data = elf_getdata_rawchunk (file->elf, (int64_t) sh->sh_offset, sh->sh_size, ELF_T_SYM);
  if (data == NULL)
    return diag_set (err, "cannot read the symbol table: %s", elf_errmsg (-1));
  size_t entsize = gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
  size_t count = data->d_size / entsize;
  for (size_t k = 0; k < count; k++)
    {
      GElf_Sym sym;
      if (gelf_getsym (data, (int) k, &sym) == NULL)
	return diag_set (err, "cannot read symbol %zu: %s", k, elf_errmsg (-1));
      if (sym.st_shndx >= SHN_LORESERVE || !stub_section_moved (plan, file, sym.st_shndx))
	continue;
      const GElf_Shdr *at = &file->shdrs[sym.st_shndx];
      sym.st_value += sp->moved_vaddr + (at->sh_offset - sp->moved_start) - at->sh_addr;
      uint64_t offset = plan->section_offsets[sp->symtab_index] + k * entsize;
      int ret;
      if (file->elfclass == ELFCLASS32)
	{
	  Elf32_Sym s32 = {
	    .st_name = sym.st_name, .st_value = (Elf32_Addr) sym.st_value,
	    .st_size = (Elf32_Word) sym.st_size, .st_info = sym.st_info,
	    .st_other = sym.st_other, .st_shndx = sym.st_shndx,
	  };
	  ret = write_records (file, out, ELF_T_SYM, &s32, 1, offset, err);
	}
      else
	ret = write_records (file, out, ELF_T_SYM, &sym, 1, offset, err);
      if (ret != 0)
	return -1;
    }
  return 0;
}

/* For a table grown in place: copy the moved objects into the stub's
   segment, point their dynamic entries there, and clear what is left of
   their old place after the table.  */
static int
write_moved (const struct elf_file *file, const struct layout_plan *plan, int out,
	     struct diag *err)
{
  const struct stub_plan *sp = &plan->stub;
  if (sp->moved_end > sp->moved_start
      && copy_range (file->fd, out, sp->moved_start, sp->moved_offset,
		     sp->moved_end - sp->moved_start, false, err) != 0)
    return -1;
  for (size_t k = 0; k < sp->nmoved; k++)
    if (!sp->moved[k].segment
	&& write_dyn (file, out, sp->moved[k].dyn_tag, sp->moved[k].dyn_value,
		      sp->moved[k].dyn_offset, err) != 0)
      return -1;
  if (sp->nsyms_moved != 0 && write_moved_symbols (file, plan, out, err) != 0)
    return -1;
  /* The old bytes after the grown table, mapped like the table.  */
  uint64_t table_end = file->ehdr.e_phoff + (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
  uint64_t shift = plan->new_phoff - file->ehdr.e_phoff;
  static const unsigned char zeros[256];
  for (uint64_t at = table_end; at < sp->moved_end;)
    {
      size_t n = sp->moved_end - at < sizeof zeros ? (size_t) (sp->moved_end - at) : sizeof zeros;
      ssize_t w = pwrite (out, zeros, n, (off_t) (at + shift));
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	return diag_set (err, "cannot clear the moved objects' old place: %s",
			 w == 0 ? "no progress" : strerror (errno));
      at += (uint64_t) w;
    }
  return 0;
}

/* Write the stub's segment after its program header table, and hook it.  */
static int
write_stub (const struct elf_file *file, const struct layout_plan *plan, int out,
	    struct diag *err)
{
  const struct stub_plan *sp = &plan->stub;
  unsigned char *seg = calloc (1, sp->seg_size);
  if (seg == NULL)
    return diag_set (err, "out of memory");
  stub_segment_tail (plan, file, seg);
  uint64_t from = sp->code_offset - sp->seg_offset;
  int ret = 0;
  if (pwrite (out, seg + from, sp->seg_size - from, (off_t) sp->code_offset)
      != (ssize_t) (sp->seg_size - from))
    ret = diag_set (err, "cannot write the stub: %s", strerror (errno));
  free (seg);
  if (ret == 0 && sp->add_section)
    {
      /* The section name table, copied and extended by the stub's name.  */
      size_t shstrndx = 0;
      elf_getshdrstrndx (file->elf, &shstrndx);
      const GElf_Shdr *names = &file->shdrs[shstrndx];
      unsigned char *buf = calloc (1, sp->shstrtab_size);
      if (buf == NULL)
	return diag_set (err, "out of memory");
      if (pread (file->fd, buf, names->sh_size, (off_t) names->sh_offset) != (ssize_t) names->sh_size)
	ret = diag_set (err, "cannot read the section name table: %s", strerror (errno));
      memcpy (buf + names->sh_size, STUB_SECTION_NAME, sizeof STUB_SECTION_NAME);
      memcpy (buf + names->sh_size + sizeof STUB_SECTION_NAME, STUB_PHDR_SECTION_NAME,
	      sizeof STUB_PHDR_SECTION_NAME);
      if (ret == 0 && pwrite (out, buf, sp->shstrtab_size, (off_t) sp->shstrtab_offset)
		      != (ssize_t) sp->shstrtab_size)
	ret = diag_set (err, "cannot write the section name table: %s", strerror (errno));
      free (buf);
    }
  if (ret == 0 && sp->hook != STUB_HOOK_ENTRY)
    ret = write_dyn (file, out, DT_INIT, sp->entry_vaddr, sp->dyn_offset, err);
  if (ret == 0 && sp->table == STUB_TABLE_GROWN)
    ret = write_moved (file, plan, out, err);
  return ret;
}

/* Write the section header table with every sh_offset mapped.  */
static int
write_shdrs (const struct elf_file *file, const struct layout_plan *plan, int out,
	     struct diag *err)
{
  size_t n = layout_new_shnum (plan, file);
  void *table = calloc (n, file->elfclass == ELFCLASS32 ? sizeof (Elf32_Shdr) : sizeof (Elf64_Shdr));
  GElf_Shdr *shdrs = calloc (n, sizeof *shdrs);
  if (table == NULL || shdrs == NULL)
    {
      free (table);
      free (shdrs);
      return diag_set (err, "out of memory");
    }
  layout_new_shdr_table (plan, file, shdrs);
  for (size_t i = 0; i < n; i++)
    {
      GElf_Shdr sh = shdrs[i];
      if (file->elfclass == ELFCLASS32)
	((Elf32_Shdr *) table)[i] = (Elf32_Shdr) {
	  .sh_name = sh.sh_name, .sh_type = sh.sh_type, .sh_flags = (Elf32_Word) sh.sh_flags,
	  .sh_addr = (Elf32_Addr) sh.sh_addr, .sh_offset = (Elf32_Off) sh.sh_offset,
	  .sh_size = (Elf32_Word) sh.sh_size, .sh_link = sh.sh_link, .sh_info = sh.sh_info,
	  .sh_addralign = (Elf32_Word) sh.sh_addralign, .sh_entsize = (Elf32_Word) sh.sh_entsize,
	};
      else
	((Elf64_Shdr *) table)[i] = sh;
    }
  int ret = write_records (file, out, ELF_T_SHDR, table, n, plan->new_shoff, err);
  free (table);
  free (shdrs);
  return ret;
}

/* Write the ELF header with the header tables' new offsets.  */
static int
write_ehdr (const struct elf_file *file, const struct layout_plan *plan, int out,
	    struct diag *err)
{
  GElf_Ehdr eh = file->ehdr;
  eh.e_phoff = plan->new_phoff;
  eh.e_shoff = plan->new_shoff;
  if (plan->stub.enabled)
    {
      eh.e_phnum = (GElf_Half) plan->stub.new_phnum;
      if (plan->stub.add_section)
	eh.e_shnum = (GElf_Half) plan->stub.new_shnum;
      if (plan->stub.hook == STUB_HOOK_ENTRY)
	eh.e_entry = plan->stub.entry_vaddr;
    }
  if (file->elfclass == ELFCLASS32)
    {
      Elf32_Ehdr e32 = {
	.e_type = eh.e_type, .e_machine = eh.e_machine, .e_version = eh.e_version,
	.e_entry = (Elf32_Addr) eh.e_entry, .e_phoff = (Elf32_Off) eh.e_phoff,
	.e_shoff = (Elf32_Off) eh.e_shoff, .e_flags = eh.e_flags, .e_ehsize = eh.e_ehsize,
	.e_phentsize = eh.e_phentsize, .e_phnum = eh.e_phnum, .e_shentsize = eh.e_shentsize,
	.e_shnum = eh.e_shnum, .e_shstrndx = eh.e_shstrndx,
      };
      memcpy (e32.e_ident, eh.e_ident, EI_NIDENT);
      return write_records (file, out, ELF_T_EHDR, &e32, 1, 0, err);
    }
  return write_records (file, out, ELF_T_EHDR, &eh, 1, 0, err);
}

/* Give OUT the owner, mode and extended attributes of the input.  */
static int
keep_metadata (const struct elf_file *file, int out, struct diag *err)
{
  /* chown clears set-user-ID bits and file capabilities, so it goes first.  */
  if (fchown (out, file->st.st_uid, file->st.st_gid) != 0)
    {
      struct stat st;
      if (fstat (out, &st) != 0 || st.st_uid != file->st.st_uid || st.st_gid != file->st.st_gid)
	return diag_set (err, "cannot keep the owner: %s", strerror (errno));
    }
  if (fchmod (out, file->st.st_mode & 07777) != 0)
    return diag_set (err, "cannot keep the mode: %s", strerror (errno));
#ifdef HAVE_SYS_XATTR_H
  ssize_t len = flistxattr (file->fd, NULL, 0);
  if (len < 0)
    return (errno == ENOTSUP || errno == ENOSYS) ? 0
	   : diag_set (err, "cannot list extended attributes: %s", strerror (errno));
  char *names = malloc ((size_t) len + 1);
  if (names == NULL)
    return diag_set (err, "out of memory");
  len = flistxattr (file->fd, names, (size_t) len);
  int ret = len < 0 ? diag_set (err, "cannot list extended attributes: %s", strerror (errno)) : 0;
  for (ssize_t at = 0; ret == 0 && at < len; at += (ssize_t) strlen (names + at) + 1)
    {
      const char *name = names + at;
      ssize_t vlen = fgetxattr (file->fd, name, NULL, 0);
      char *value = vlen >= 0 ? malloc ((size_t) vlen + 1) : NULL;
      if (vlen >= 0 && value != NULL)
	vlen = fgetxattr (file->fd, name, value, (size_t) vlen);
      if (vlen < 0 || value == NULL)
	ret = diag_set (err, "cannot read extended attribute %s: %s", name,
			value == NULL && vlen >= 0 ? "out of memory" : strerror (errno));
      else if (fsetxattr (out, name, value, (size_t) vlen, 0) != 0)
	ret = diag_set (err, "cannot keep extended attribute %s: %s", name, strerror (errno));
      free (value);
    }
  free (names);
  return ret;
#else
  return 0;
#endif
}

/* Give OUT, a new file beside a target that is not the input, the input's
   permission bits as cp would: without set-ID bits, less the umask.  */
static int
new_file_mode (const struct elf_file *file, int out, struct diag *err)
{
  mode_t mask = umask (0);
  umask (mask);
  if (fchmod (out, file->st.st_mode & 0777 & ~mask) != 0)
    return diag_set (err, "cannot set the mode: %s", strerror (errno));
  return 0;
}

/* Whether the LEN bytes at IN_OFF of IN equal those at OUT_OFF of OUT, except
   within the header tables the writer re-encoded (SKIP, NSKIP old ranges).  */
static int
compare_range (int in, int out, uint64_t in_off, uint64_t out_off, uint64_t len,
	       const uint64_t (*skip)[2], size_t nskip, struct diag *err)
{
  unsigned char a[4096], b[4096];
  while (len > 0)
    {
      size_t n = len < sizeof a ? (size_t) len : sizeof a;
      if (pread (in, a, n, (off_t) in_off) != (ssize_t) n
	  || pread (out, b, n, (off_t) out_off) != (ssize_t) n)
	return diag_set (err, "cannot read back the output: %s", strerror (errno));
      if (memcmp (a, b, n) != 0)
	for (size_t k = 0; k < n; k++)
	  if (a[k] != b[k])
	  {
	      bool in_table = false;
	      for (size_t s = 0; s < nskip; s++)
		if (in_off + k >= skip[s][0] && in_off + k - skip[s][0] < skip[s][1])
		  in_table = true;
	      if (!in_table)
		return diag_set (err, "internal error: input byte %#" PRIx64 " did not land at %#" PRIx64,
				 in_off + k, out_off + k);
	    }
      in_off += n;
      out_off += n;
      len -= n;
    }
  return 0;
}

/* Check the byte-map property on the written file: the input's bytes are
   where the map puts them.  Reading all of a large output back would double
   the cost of a rewrite, so this compares the first and last 16 KiB of each
   copied range, which is where an off-by-something in the map would show,
   and one page in every 4 MiB in between.  */
static int
verify_byte_map (const struct elf_file *file, const struct layout_plan *plan, int out,
		 struct diag *err)
{
  const uint64_t edge = 16 << 10, stride = (uint64_t) 4 << 20;
  const struct stub_plan *sp = &plan->stub;
  uint64_t dynsize = gelf_fsize (file->elf, ELF_T_DYN, 1, EV_CURRENT);
  uint64_t skip[5 + STUB_MAX_MOVED][2] = {
    { 0, elf_ehdr_size (file->elfclass) },
    { file->ehdr.e_phoff, (uint64_t) file->phnum * elf_phdr_size (file->elfclass) },
    { file->ehdr.e_shoff, (uint64_t) file->shnum * elf_shdr_size (file->elfclass) },
    { sp->enabled && sp->hook != STUB_HOOK_ENTRY ? sp->dyn_old_offset : 0,
      sp->enabled && sp->hook != STUB_HOOK_ENTRY ? dynsize : 0 },
  };
  size_t nskip = 4;
  if (sp->enabled && sp->table == STUB_TABLE_GROWN)
    {
      /* The grown table and the cleared place of what moved.  */
      uint64_t end = file->ehdr.e_phoff + (uint64_t) sp->new_phnum * elf_phdr_size (file->elfclass);
      if (sp->moved_end > end)
	end = sp->moved_end;
      skip[1][1] = end - file->ehdr.e_phoff;
      /* The symbol table whose moved symbols were rewritten: checked
	 field by field in verify_output.  */
      if (sp->nsyms_moved != 0)
	{
	  skip[nskip][0] = file->shdrs[sp->symtab_index].sh_offset;
	  skip[nskip++][1] = file->shdrs[sp->symtab_index].sh_size;
	}
      for (size_t k = 0; k < sp->nmoved; k++)
	if (!sp->moved[k].segment)
	  {
	    skip[nskip][0] = sp->moved[k].dyn_old_offset;
	    skip[nskip++][1] = dynsize;
	  }
    }
  uint64_t start = 0;
  for (size_t k = 0; k <= plan->ninserts; k++)
    {
      uint64_t end = k < plan->ninserts ? plan->inserts[k].at : plan->old_size;
      uint64_t len = end - start, to = layout_map_offset (plan, start);
      if (len <= 2 * edge)
	{
	  if (compare_range (file->fd, out, start, to, len, skip, nskip, err) != 0)
	    return -1;
	}
      else
	{
	  if (compare_range (file->fd, out, start, to, edge, skip, nskip, err) != 0
	      || compare_range (file->fd, out, end - edge, to + len - edge, edge, skip, nskip, err) != 0)
	    return -1;
	  for (uint64_t at = edge; at + 4096 <= len - edge; at += stride)
	    if (compare_range (file->fd, out, start + at, to + at, 4096, skip, nskip, err) != 0)
	      return -1;
	}
      /* The hole reads as zeros.  */
      if (k < plan->ninserts)
	{
	  uint64_t hole = layout_map_offset (plan, end) - plan->inserts[k].pad;
	  unsigned char z[4096];
	  uint64_t pad = plan->inserts[k].pad;
	  for (uint64_t at = 0; at < pad; at += sizeof z)
	    {
	      size_t n = pad - at < sizeof z ? (size_t) (pad - at) : sizeof z;
	      if (pread (out, z, n, (off_t) (hole + at)) != (ssize_t) n)
		return diag_set (err, "cannot read back the output: %s", strerror (errno));
	      for (size_t i = 0; i < n; i++)
		if (z[i] != 0)
		  return diag_set (err, "internal error: padding at %#" PRIx64 " is not zero", hole + at + i);
	    }
	}
      start = end;
    }
  return 0;
}

/* Check the output OUT's symbol table that follows the moved sections: every
   symbol as in the input, but st_value of those defined in moved sections,
   which moved with their section.  */
static int
verify_symbols (const struct elf_file *file, const struct layout_plan *plan,
		const struct elf_file *out, struct diag *err)
{
  size_t index = plan->stub.symtab_index;
  const GElf_Shdr *a = &file->shdrs[index], *b = &out->shdrs[index];
  Elf_Data *da = elf_getdata_rawchunk (file->elf, (int64_t) a->sh_offset, a->sh_size, ELF_T_SYM);
  Elf_Data *db = elf_getdata_rawchunk (out->elf, (int64_t) b->sh_offset, b->sh_size, ELF_T_SYM);
  if (da == NULL || db == NULL || da->d_size != db->d_size)
    return diag_set (err, "internal error: the output's symbol table does not read back");
  size_t count = da->d_size / gelf_fsize (file->elf, ELF_T_SYM, 1, EV_CURRENT);
  for (size_t k = 0; k < count; k++)
    {
      GElf_Sym x, y;
      if (gelf_getsym (da, (int) k, &x) == NULL || gelf_getsym (db, (int) k, &y) == NULL)
	return diag_set (err, "internal error: the output's symbol table does not read back");
      if (x.st_shndx < SHN_LORESERVE && stub_section_moved (plan, file, x.st_shndx))
	x.st_value += out->shdrs[x.st_shndx].sh_addr - file->shdrs[x.st_shndx].sh_addr;
      if (memcmp (&x, &y, sizeof x) != 0)
	return diag_set (err, "internal error: symbol %zu of the output differs from the plan", k);
    }
  return 0;
}

/* Read the written file back and check it against the plan, with the same
   validation as any input.  */
static int
verify_output (const struct elf_file *file, const struct layout_plan *plan,
	       const char *path, struct diag *err)
{
  struct elf_file out;
  struct diag oerr = { "" };
  if (elf_file_open (&out, path, &oerr) != 0)
    return diag_set (err, "internal error: the output does not read back: %s", oerr.msg);
  int ret = 0;
  size_t phnum = layout_new_phnum (plan, file);
  if ((uint64_t) out.st.st_size != plan->new_size || out.phnum != phnum
      || out.ehdr.e_phoff != plan->new_phoff || out.ehdr.e_shoff != plan->new_shoff
      || out.shnum != layout_new_shnum (plan, file))
    ret = diag_set (err, "internal error: the output's headers differ from the plan");
  GElf_Phdr *planned = calloc (phnum != 0 ? phnum : 1, sizeof *planned);
  if (ret == 0 && planned == NULL)
    ret = diag_set (err, "out of memory");
  if (ret == 0)
    layout_new_phdr_table (plan, file, planned);
  for (size_t i = 0; ret == 0 && i < phnum; i++)
    if (memcmp (&planned[i], &out.phdrs[i], sizeof planned[i]) != 0)
      ret = diag_set (err, "internal error: program header %zu of the output differs from the plan", i);
  free (planned);
  size_t shnum = layout_new_shnum (plan, file);
  GElf_Shdr *sections = calloc (shnum != 0 ? shnum : 1, sizeof *sections);
  if (ret == 0 && sections == NULL)
    ret = diag_set (err, "out of memory");
  if (ret == 0)
    layout_new_shdr_table (plan, file, sections);
  for (size_t i = 0; ret == 0 && i < shnum; i++)
    if (memcmp (&sections[i], &out.shdrs[i], sizeof sections[i]) != 0)
      ret = diag_set (err, "internal error: section header %zu of the output differs from the plan", i);
  free (sections);
  if (ret == 0)
    ret = verify_byte_map (file, plan, out.fd, err);
  /* The moved objects' copy is byte for byte what they were.  */
  const struct stub_plan *sp = &plan->stub;
  if (ret == 0 && sp->enabled && sp->table == STUB_TABLE_GROWN)
    ret = compare_range (file->fd, out.fd, sp->moved_start, sp->moved_offset,
			 sp->moved_end - sp->moved_start, NULL, 0, err);
  if (ret == 0 && sp->enabled && sp->table == STUB_TABLE_GROWN && sp->nsyms_moved != 0)
    ret = verify_symbols (file, plan, &out, err);
  elf_file_close (&out);
  return ret;
}

/* Whether the input still is the file that was planned for.  */
static bool
input_unchanged (const struct elf_file *file)
{
  struct stat st;
  return fstat (file->fd, &st) == 0 && st.st_size == file->st.st_size
	 && st.st_mtim.tv_sec == file->st.st_mtim.tv_sec
	 && st.st_mtim.tv_nsec == file->st.st_mtim.tv_nsec;
}

static int
sync_directory (const char *dir, struct diag *err)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return diag_set (err, "cannot open directory %s: %s", dir, strerror (errno));
  int ret = fsync (fd) == 0 || errno == EINVAL ? 0
	    : diag_set (err, "cannot sync directory %s: %s", dir, strerror (errno));
  close (fd);
  return ret;
}

static int
write_to_temp (const struct elf_file *file, const struct layout_plan *plan,
	       const struct output *o, const struct write_options *opts,
	       struct write_result *res, struct diag *err)
{
  if (copy_contents (file, plan, o->fd, opts->sync, err) != 0)
    return -1;
  bool tables_move = plan->new_phoff != file->ehdr.e_phoff || plan->new_shoff != file->ehdr.e_shoff
		     || plan->stub.enabled;
  if (tables_move && write_ehdr (file, plan, o->fd, err) != 0)
    return -1;
  if (plan->changed && file->phnum != 0 && write_phdrs (file, plan, o->fd, err) != 0)
    return -1;
  if ((plan->ninserts != 0 || plan->stub.add_section) && file->shnum != 0
      && write_shdrs (file, plan, o->fd, err) != 0)
    return -1;
  if (plan->stub.enabled && write_stub (file, plan, o->fd, err) != 0)
    return -1;
  if ((opts->in_place ? keep_metadata (file, o->fd, err) : new_file_mode (file, o->fd, err)) != 0)
    return -1;
  if (opts->sync && fsync (o->fd) != 0)
    return diag_set (err, "cannot sync the output: %s", strerror (errno));
  struct stat st;
  if (fstat (o->fd, &st) != 0)
    return diag_set (err, "cannot stat the output: %s", strerror (errno));
  res->allocated_before = (uint64_t) file->st.st_blocks * 512;
  res->allocated_after = (uint64_t) st.st_blocks * 512;
  if (file->skip_reason == NULL && verify_output (file, plan, o->tmp_path, err) != 0)
    return -1;
  if (!input_unchanged (file))
    return diag_set (err, "the file changed while being rewritten");
  return 0;
}

int
write_plan (const struct elf_file *file, const struct layout_plan *plan,
	    const char *target, const struct write_options *opts, struct write_result *res,
	    struct diag *err)
{
  char *dircopy = strdup (target);
  if (dircopy == NULL)
    return diag_set (err, "out of memory");
  const char *dir = dirname (dircopy);
  struct output o = { .fd = -1 };
  if (asprintf (&o.tmp_path, "%s/.elfpmd.XXXXXX", dir) < 0)
    {
      free (dircopy);
      return diag_set (err, "out of memory");
    }

  /* An interrupted rewrite must not leave a temporary file behind: hold the
     usual termination signals until the temporary file is gone or renamed.  */
  sigset_t block, saved;
  sigemptyset (&block);
  sigaddset (&block, SIGINT);
  sigaddset (&block, SIGTERM);
  sigaddset (&block, SIGHUP);
  sigaddset (&block, SIGQUIT);
  sigprocmask (SIG_BLOCK, &block, &saved);

  int ret = -1;
  o.fd = mkostemp (o.tmp_path, O_CLOEXEC);
  if (o.fd < 0)
    {
      diag_set (err, "cannot create a temporary file in %s: %s", dir, strerror (errno));
      goto out;
    }
  if (write_to_temp (file, plan, &o, opts, res, err) != 0)
    goto cleanup;
  if (rename (o.tmp_path, target) != 0)
    {
      diag_set (err, "cannot replace %s: %s", target, strerror (errno));
      goto cleanup;
    }
  ret = 0;
  if (opts->sync && sync_directory (dir, err) != 0)
    ret = -1;		/* The new file is in place; only its durability is unsure.  */
  goto close_out;

cleanup:
  unlink (o.tmp_path);
close_out:
  close (o.fd);
out:
  sigprocmask (SIG_SETMASK, &saved, NULL);
  free (o.tmp_path);
  free (dircopy);
  return ret;
}
