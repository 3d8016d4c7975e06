/* A second libtool library that libbig links: libtool relinks libbig when
   it installs it.  */
int
big_dep (void)
{
  return 0;
}
