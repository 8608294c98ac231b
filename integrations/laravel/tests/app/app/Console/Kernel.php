<?php

namespace App\Console;

use Illuminate\Console\Scheduling\Schedule;
use Illuminate\Foundation\Console\Kernel as ConsoleKernel;
use Illuminate\Support\Facades\Redis;

class Kernel extends ConsoleKernel
{
    /** One task, run by the scheduler test: counts its runs, takes 2 s. */
    protected function schedule(Schedule $schedule)
    {
        $schedule->call(function () {
            Redis::incr('dltest:sched-runs');
            sleep(2);
        })->name('dltest-task')->everyMinute()->withoutOverlapping()->onOneServer();
    }

    protected function commands()
    {
        require base_path('routes/console.php');
    }
}
