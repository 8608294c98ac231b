set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/multi.svg'
set title "Multi-lock: server µs per name"
set xlabel "names per lockAll"
set ylabel "server CPU µs per name"
set grid
set key top left
set logscale x
set yrange [0:*]
plot "bench/scale/multi.tsv" using 1:2 with linespoints title "server CPU µs per name"
