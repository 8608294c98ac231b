set terminal svg size 720,420 font 'sans,12'
set output 'bench/scale/handover-server.svg'
set title "Server cost per acquisition vs processes on one name"
set xlabel "processes (one holds, the others wait)"
set ylabel "server CPU µs"
set grid
set key top left
set logscale x
set yrange [0:*]
plot "bench/scale/handover-server.tsv" using 1:2 with linespoints title "floor", "bench/scale/handover-server.tsv" using 1:3 with linespoints title "distlock default", "bench/scale/handover-server.tsv" using 1:4 with linespoints title "distlock fair"
