/**
 * @module workload/vocab
 * The fixed vocabulary synthetic prompts are built from: short, common English words (≤ 6
 * letters). Each was checked to be one token, with and without a leading space, in the Qwen3
 * tokenizer, and each is one piece in the approximate tokenizer (≤ 6 letters), so a prompt of k
 * words is about k tokens and the token-exact search settles in one or two counts. Changing this
 * list changes every synthetic prompt for a given seed: treat it as part of the reproducibility
 * contract.
 */

/** Words synthetic prompts are drawn from (distinct, lowercase ASCII). */
export const VOCAB: readonly string[] =
  `the of and to in is was for on are with as at be by this had not but from or have
an they which one you were her all she there would their we him been has when who will more no if out so said what
up its about into than them can only other new some could time these two may then do first any my now such like our
over man me even most made after also did many well way down should each just those people how too little state good
very make world still own see men work long here get both life being under never day same know while last might us
great old year off come since go came right used take three states few house use during again place around home
small found went say part once high upon school every does got left number course war until always away fact though
water less public put think almost hand far took head yet system better set night end why called eyes find going
look later point next city give group young let room side social given order rather second face per among form
often early white case large big need four within felt along best church ever least power light thing family want
mind area others done turned open kind door thus help means sense whole matter times law human line above name
action hands local show five today either act taken past quite seen having death week body word half really field
am car words tell shall money period held keep sure free real cannot miss air office making whose heard major ago
moment study known result street boy reason change south board job areas west close turn love true court force full
cost wife future age wanted voice center woman common policy front six girl clear land run feel party able mother
music child effect level stood town short total rate figure class art north leave top sound play boys black`
    .split(/\s+/)
    .filter((w) => w.length > 0);

/**
 * Words appended one at a time when the next vocabulary word would overshoot the target by
 * more than one token: each is a single token in every tokenizer we know of, and the first
 * that adds exactly one token at that boundary is used.
 */
export const FILLERS: readonly string[] = [' a', ' I', ' the', ' of', ' to', ' and', ' in', ' is', '.', ','];
