import glob,re,os,sys,collections
out=sys.argv[1]; prefix=sys.argv[2]; t=collections.defaultdict(dict)
for f in glob.glob(out+'/'+prefix+'-*.log'):
    b=os.path.basename(f)[len(prefix)+1:-4]
    for l in open(f):
        m=re.match(r'\s+(\d+)\s+\d+\s+\w+\s+([\d.]+)\s+\S+\s+(\S+)\s+(\S+)',l)
        if m: t[int(m.group(1))][b]=(float(m.group(2)),m.group(4))
print(prefix, 'bytes new1 old1 new2 old2 best-new/best-old check')
for k in sorted(t):
    r=t[k]; g=lambda x: r.get(x,(9e9,'-'))
    n=min(g('new-1')[0],g('new-2')[0]); o=min(g('old-1')[0],g('old-2')[0])
    print(k, g('new-1')[0], g('old-1')[0], g('new-2')[0], g('old-2')[0], round(n/o,3), g('new-1')[1], g('old-1')[1])
