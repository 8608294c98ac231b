<?php

namespace App\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldBeUnique;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\Redis;

/** A unique job (no $uniqueFor: "until processed", i.e. forever_ttl); counts its runs. */
class UniqueJob implements ShouldQueue, ShouldBeUnique
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public function uniqueId()
    {
        return 'one';
    }

    public function handle()
    {
        Redis::incr('dltest:unique-handled');
    }
}
