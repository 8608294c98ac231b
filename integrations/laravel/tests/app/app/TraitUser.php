<?php

namespace App;

use DistLock\Laravel\LockTrait;

/** A service class that uses the drop-in trait (no $this->redis). */
class TraitUser
{
    use LockTrait;
}
