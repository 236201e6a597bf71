"""UKPConvArg1 (Habernal & Gurevych, ACL 2016): which of two arguments is more convincing?"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from datetime import datetime, timezone
from xml.sax.saxutils import unescape

import datasets

from argbench.sources import declare

from ._base import ArgbenchBuilder, DataError
from ._readers import tab_lines

_BASE = (
    "https://raw.githubusercontent.com/UKPLab/acl2016-convincing-arguments/"
    "ca9d24e41b8805ff2e1d3585d552b49bb64a65f7/data"
)
FOLDERS = {
    "full": "UKPConvArg1-full-XML",
    "strict": "UKPConvArg1Strict-CSV",
    "ranking": "UKPConvArg1-Ranking-CSV",
}

# sha256sum of the 96 files (one per debate side and folder), as in the pinned commit.
_SHA256SUMS = """\
27a58eed6877749b6cb7337691438a11b0b02aca21c3d2313a751fcc684bc9a2  UKPConvArg1-full-XML/ban-plastic-water-bottles_no-bad-for-the-economy.xml
2e0a9e3400484f06f23a1ec45af1c1b0fa5c1621ea787d5db337a6c4e8e4d182  UKPConvArg1-full-XML/ban-plastic-water-bottles_yes-emergencies-only.xml
030d9c1966555c8e9f5a182bec8a7beb74fe5c20820e1d264944000c93e9b439  UKPConvArg1-full-XML/christianity-or-atheism-_atheism.xml
0562624bf8e079c4132730bd5c0d57202662157ab10370164b31bb52acacbdff  UKPConvArg1-full-XML/christianity-or-atheism-_christianity.xml
61a0fdde8d1bab2cf2b674526f20cbf7a4564861062225cdf4540f5cf8d4102f  UKPConvArg1-full-XML/evolution-vs-creation_creation.xml
eb783caaa65bc4660bda8ee8e303d64d895e8dd6bfdcda71a6b1c9c21e188504  UKPConvArg1-full-XML/evolution-vs-creation_evolution.xml
7d8e9241900c120970f11aad23daa23fa8b2baf937d3f48f4f0568f8a93ea14a  UKPConvArg1-full-XML/firefox-vs-internet-explorer_it-has-a-cute-logo-oh-and-extensions-err-add-ons.xml
3b712e9bf9bec5454f3039d9dae38999dca25f5b27230e992d9b6dc5a88b0f8a  UKPConvArg1-full-XML/firefox-vs-internet-explorer_there-s-more-browsers-than-the-ie-firefox-is-an-animal.xml
b9cf264e41eab6ea07af741199a0b3861c5e95c75d947264748fadb0164cf24d  UKPConvArg1-full-XML/gay-marriage-right-or-wrong_allowing-gay-marriage-is-right.xml
177f52333cb8df1a854c3b2095cabe6dedc172b51d5e48cbf42270f0b4d5a4fc  UKPConvArg1-full-XML/gay-marriage-right-or-wrong_allowing-gay-marriage-is-wrong.xml
20e3033858d60f9247ea01e6d4c84f38ad6720d3256316445c7643d7ff8f5846  UKPConvArg1-full-XML/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_no.xml
480139e39272fb2f66f7f3894559e1970cddc14e4b502bbfd9648efae8d22160  UKPConvArg1-full-XML/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_yes.xml
10e290e275d38aaf1e8281af6fbf10d71ed7bfe73ceb72a2e25b880c5f850fb1  UKPConvArg1-full-XML/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_no.xml
43d7ab10c927d84eb34f374b97e5f2e65fc0cc868084637cf03ab747227ce9d1  UKPConvArg1-full-XML/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_yes.xml
53370c82cdde3bd7c4087af8b75c3214b9cfedeb0eae56f6f42391e3fd7baf41  UKPConvArg1-full-XML/india-has-the-potential-to-lead-the-world-_no-against.xml
4ba447e2987740279b92a58fbb265c790e9dd0a3d02907a6bce27709f51d9d4e  UKPConvArg1-full-XML/india-has-the-potential-to-lead-the-world-_yes-for.xml
ef6826183e785d103f4cad043d84187a0db901a2b5ac7f3fc36cb0ad11eddf39  UKPConvArg1-full-XML/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_fatherless.xml
869e56198773bcf9f936df1c292b8c68c8f71005457639f20bcc0e2cd4c24b36  UKPConvArg1-full-XML/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_lousy-father.xml
a9dad3a0fb4fc5b2c8ac86b889f9822ca0eb74b325327e26a52e4fb3e8199072  UKPConvArg1-full-XML/is-porn-wrong-_no-is-is-not.xml
454c18c589cdc726239e670887e5eca73fbe04d31506cb48b516b086f16b03e6  UKPConvArg1-full-XML/is-porn-wrong-_yes-porn-is-wrong.xml
b085d195b0518e719c7101086c913050f18affd2d31b3b1ad5fc9798ba29a453  UKPConvArg1-full-XML/is-the-school-uniform-a-good-or-bad-idea-_bad.xml
b4d73ad2bdac1027e034bd7cdf9969fd407f1f11d7df35f31de3c711d88245ce  UKPConvArg1-full-XML/is-the-school-uniform-a-good-or-bad-idea-_good.xml
cebbdddb277b941a5d26577b21b5fd2898b3b1c17079d2d05000ca1f1f96a5f1  UKPConvArg1-full-XML/personal-pursuit-or-advancing-the-common-good-_advancing-the-comnong-good.xml
a974bef3814eb1a83c1376bec689f6146ad3f4fc0a036da6885938d997c9c08f  UKPConvArg1-full-XML/personal-pursuit-or-advancing-the-common-good-_personal-pursuit.xml
4a09892fa7e8ea55321f0cf09c3e898ce32ed0078e1bb6f0991c90d06bbcc7e8  UKPConvArg1-full-XML/pro-choice-vs-pro-life_pro-choice.xml
c2c72cb3b32073d84b68ea9226d5fc208ec34af72169554d55299d31a319b7a3  UKPConvArg1-full-XML/pro-choice-vs-pro-life_pro-life.xml
cb0f9e465edc8596c56551757ddfc52a03b81923eafabb16d94dd09afdf3bbea  UKPConvArg1-full-XML/should-physical-education-be-mandatory-in-schools-_no-.xml
5320fe0b583b2b61fa4be2518601d725dd973950b125d9a19155806b8b1a221b  UKPConvArg1-full-XML/should-physical-education-be-mandatory-in-schools-_yes-.xml
c19e93cb3e067f81d349b8c5f68a5889a5ab8a97737774bcd166c0ff7eeb011b  UKPConvArg1-full-XML/tv-is-better-than-books_books.xml
8abe5abb83a532a2a3561486b8233211b7f4ee002b05db63d87eb6fe93bfafd3  UKPConvArg1-full-XML/tv-is-better-than-books_tv.xml
d306d44dec62268401cca39ba39bf0c22789b223726b8ec2e5954eea988c18a8  UKPConvArg1-full-XML/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_no-it-is-raffles-.xml
a57e14dd4b83525534d102e718058a369c56f3067ad2525edb3b44612471129d  UKPConvArg1-full-XML/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_yes-of-course-.xml
d1efc6d3f08a0167d6b71cf8f50ccb9d89da8e353162a712629dbaddee9fc883  UKPConvArg1Strict-CSV/ban-plastic-water-bottles_no-bad-for-the-economy.csv
f1b594fcd3feb274a819b9bdd59673034f555d89acbabe7c0b40adcfc8df13de  UKPConvArg1Strict-CSV/ban-plastic-water-bottles_yes-emergencies-only.csv
c9784346115d1275cab5fb6288a635e5a67b32110d73b2677629263e38a2f16e  UKPConvArg1Strict-CSV/christianity-or-atheism-_atheism.csv
e90ce4eabeb3c6a34ad772e34ba7f5255364fa27cd87eaf2406824af401e1dcb  UKPConvArg1Strict-CSV/christianity-or-atheism-_christianity.csv
722c40b9b2e6725036fcaca243fe7421deedf253f939a66a2c332e8a8395406b  UKPConvArg1Strict-CSV/evolution-vs-creation_creation.csv
0b8218b8b9bb8c3d7660a8b6008ddefc081c1d301de329dc7af796ab55f3a563  UKPConvArg1Strict-CSV/evolution-vs-creation_evolution.csv
9a33cbec5bcb9f3651bc3747117ed1faa9b7c3cf93a86a3ba3bab9d3435898b1  UKPConvArg1Strict-CSV/firefox-vs-internet-explorer_it-has-a-cute-logo-oh-and-extensions-err-add-ons.csv
101719aae383d31cc05195524a8a79efacca767268bf91c1f7ad2be5aca8cacd  UKPConvArg1Strict-CSV/firefox-vs-internet-explorer_there-s-more-browsers-than-the-ie-firefox-is-an-animal.csv
c504170720075bb247bf857b4a74e2a0006e227874d41a365d4cf742143af02c  UKPConvArg1Strict-CSV/gay-marriage-right-or-wrong_allowing-gay-marriage-is-right.csv
2759c1ad9c0748a1fa8cbbf6166e104b9a731d46c007eec9221746ec78a27fd2  UKPConvArg1Strict-CSV/gay-marriage-right-or-wrong_allowing-gay-marriage-is-wrong.csv
7a3ac8558be74f3f4f085293d545800f866f66b0b8cfdf8702c1d32b70dfe7a8  UKPConvArg1Strict-CSV/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_no.csv
103403421f41b18f102954f9a8968aa18a6edf759379cccec19e2dcd10af8d71  UKPConvArg1Strict-CSV/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_yes.csv
924bbb29b79990b196ac2f17c25a8a5ada2c1eb44369052ad006731f272459ea  UKPConvArg1Strict-CSV/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_no.csv
c8c5ed3510f842aa60d4935f3137293637b2a8c775788ccbe00ac925d625d45d  UKPConvArg1Strict-CSV/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_yes.csv
fc5d6699740e343606133afd9cb8eb5e44accaf9ddca5502c41809d40592d4d5  UKPConvArg1Strict-CSV/india-has-the-potential-to-lead-the-world-_no-against.csv
5183a1587bb9c688f13da61efe8247e1c0833d459ed59cc79c0e9ceac9bbc4b3  UKPConvArg1Strict-CSV/india-has-the-potential-to-lead-the-world-_yes-for.csv
90ea69a4800eebc6aec6935dccc72d592bae2ea3acf0b8a199cb43552be2948d  UKPConvArg1Strict-CSV/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_fatherless.csv
129e2e19214db77b98a04feb66a4e85c3d78cc494b0dfb1b3d099c3e37ef0b6a  UKPConvArg1Strict-CSV/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_lousy-father.csv
b6b30bede4567c84dbc2ec8db0c6acb74f818d2685534e8d09d35f48c3f230fe  UKPConvArg1Strict-CSV/is-porn-wrong-_no-is-is-not.csv
1a827506b88b7f5d7ce1a781cb935d4fe3f019b79b83bd2a778526e10c9ff6f1  UKPConvArg1Strict-CSV/is-porn-wrong-_yes-porn-is-wrong.csv
7ebb532dcaedd836a7a96a65a7cc45bb10e92d49fd7d94a265795ecf68e1927a  UKPConvArg1Strict-CSV/is-the-school-uniform-a-good-or-bad-idea-_bad.csv
db2948b209b9d59e8aa256aa020dcc7bd53581ede762f403e2550d7eb60dad1e  UKPConvArg1Strict-CSV/is-the-school-uniform-a-good-or-bad-idea-_good.csv
4e0dcc10f2e9c360f0786aeb1545440943794c65c290d4f4d144c7ab22420748  UKPConvArg1Strict-CSV/personal-pursuit-or-advancing-the-common-good-_advancing-the-commond-good.csv
3ddb7f9b04425a02eaff86394b02ef3a516317457283bc4ba84cf38bb6048e0a  UKPConvArg1Strict-CSV/personal-pursuit-or-advancing-the-common-good-_personal-pursuit.csv
7f98ca0c5eec48782c1ce6d43aefad41428c82cb3bb0ed2b8cda48c7a035352f  UKPConvArg1Strict-CSV/pro-choice-vs-pro-life_pro-choice.csv
648586dff1eb6e4c22d7eb528cca79219daecc9b99906c8bae59f810bf532585  UKPConvArg1Strict-CSV/pro-choice-vs-pro-life_pro-life.csv
9fa60eee8b161ff400b0b88b01c3e6a1b44bedc4795eea4a75c7089b784e7c16  UKPConvArg1Strict-CSV/should-physical-education-be-mandatory-in-schools-_no-.csv
133e27fb57352eeb1bc71638051536546cabc84b90bff4f7e6d7313da944176c  UKPConvArg1Strict-CSV/should-physical-education-be-mandatory-in-schools-_yes-.csv
2d8b8247570aab28837febfdfdd7324f4e1fac2efe58a77d7fc355c89509642f  UKPConvArg1Strict-CSV/tv-is-better-than-books_books.csv
76677ba0814e95380b1f5b9a459670fd3e71ad1f5cb02ecc7ac094e3f5dfb58e  UKPConvArg1Strict-CSV/tv-is-better-than-books_tv.csv
112defbb0e49db425a7ed3e28de9a5b133c17f739fa9d0b8d08c9ee00facf785  UKPConvArg1Strict-CSV/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_no-it-is-raffles-.csv
67addb83292e7e2d638edac70d2cc670e0b3d7ec19f57b101c8fd9ff975bab4e  UKPConvArg1Strict-CSV/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_yes-of-course-.csv
09b22038bcf7c1848096887a8c27970760abd0c09586b49c9b635f5d1dec94bc  UKPConvArg1-Ranking-CSV/ban-plastic-water-bottles_no-bad-for-the-economy.csv
b355cc200f43ecce6a9c96fe7b237be0cfd60ee531e480fcc894d17ea682c313  UKPConvArg1-Ranking-CSV/ban-plastic-water-bottles_yes-emergencies-only.csv
b453cc85e42b4245269e991270cd777ef102ad82209e2c526cc633730e7d5447  UKPConvArg1-Ranking-CSV/christianity-or-atheism-_atheism.csv
b7d46ad8d143eaa33809f3abd6236af78d5557bd3ab7502c6522c180b8b0ff6c  UKPConvArg1-Ranking-CSV/christianity-or-atheism-_christianity.csv
1c28ff014cbc091abaa0b3d81fd0c94087c7f456ce13550727065f2c7e8d93d5  UKPConvArg1-Ranking-CSV/evolution-vs-creation_creation.csv
f4c5689c656a1b9a5f1f73f610108773f996fc182ee4248c5d3e974c6668b11a  UKPConvArg1-Ranking-CSV/evolution-vs-creation_evolution.csv
20019d0a1e120b631ad64b2448ba5f3a9f29df000a079966214607e1e2b25186  UKPConvArg1-Ranking-CSV/firefox-vs-internet-explorer_it-has-a-cute-logo-oh-and-extensions-err-add-ons.csv
716be060eaff39ef76c88acba7be33dec83a328a14abcb1bff5aa3c17fbecbd8  UKPConvArg1-Ranking-CSV/firefox-vs-internet-explorer_there-s-more-browsers-than-the-ie-firefox-is-an-animal.csv
09a7dc07380d4da41ad7d0a53b9120114ee68550b2de96b2a4f11e575d6a2c49  UKPConvArg1-Ranking-CSV/gay-marriage-right-or-wrong_allowing-gay-marriage-is-right.csv
883f136bf1f8078b3d4270647b7adc8608971ea4775ed0fa12cf615bc463afac  UKPConvArg1-Ranking-CSV/gay-marriage-right-or-wrong_allowing-gay-marriage-is-wrong.csv
918ac04ff8d839c15a8939aaaea208492e2527c236b8df24de84540a145f2090  UKPConvArg1-Ranking-CSV/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_no.csv
7ef41ff4349dcdab27374b92d805f27602dedcf40fc687e8250b9874ede39fb8  UKPConvArg1-Ranking-CSV/human-growth-and-development-should-parents-use-spanking-as-an-option-to-discipline-_yes.csv
625a6b8567a415baab97a5f37aec6da623256029dca38a34d5ac938bad19a2f8  UKPConvArg1-Ranking-CSV/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_no.csv
93c8cefbd26b17b84510f6ccc0cea3e2b7e2cf8632e0eace9b427a946ab5730d  UKPConvArg1-Ranking-CSV/if-your-spouse-committed-murder-and-he-or-she-confided-in-you-would-you-turn-them-in-_yes.csv
4b3d4e8844ed1c3a5ad58cb0b2306e625fc55e72155f56ab309bae57c30d3973  UKPConvArg1-Ranking-CSV/india-has-the-potential-to-lead-the-world-_no-against.csv
4f1f70637776e128b371d37fc617a2a61024e958d002e676484e4393e4351154  UKPConvArg1-Ranking-CSV/india-has-the-potential-to-lead-the-world-_yes-for.csv
b614cd0b7b525129efbc3da02ae5044488da02a0231fb94113e1b5762dc91b23  UKPConvArg1-Ranking-CSV/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_fatherless.csv
ea1cf653a83868a6543b9c9b556cb0ec5cbfcb5cdff7191fc7cbcd922174e6f4  UKPConvArg1-Ranking-CSV/is-it-better-to-have-a-lousy-father-or-to-be-fatherless-_lousy-father.csv
62c6592da00dfeace39fc229ea7aebac0e183af51358e059a888ff00f9a47911  UKPConvArg1-Ranking-CSV/is-porn-wrong-_no-is-is-not.csv
4a411cc48a12dda7ab4e0eb265f3d94dfee096ce380435d3a04a77fb3c6c048c  UKPConvArg1-Ranking-CSV/is-porn-wrong-_yes-porn-is-wrong.csv
f9e325e02839ca069e4661474f474fd1a72ae0ca37f4938351d1082c77066106  UKPConvArg1-Ranking-CSV/is-the-school-uniform-a-good-or-bad-idea-_bad.csv
c8da2747acfd769a3604b132bbeda17fc1b13d8567828cbaf560669077f170c8  UKPConvArg1-Ranking-CSV/is-the-school-uniform-a-good-or-bad-idea-_good.csv
acdc78f9800faf2869b39fd113e0816fe94f46cf9781b4dab9d700378cba1a9d  UKPConvArg1-Ranking-CSV/personal-pursuit-or-advancing-the-common-good-_advancing-the-common-good.csv
abbd81f9cefea4ac23170ea5c71af0c1d139748c2191e918bdb7e238ff7b27f2  UKPConvArg1-Ranking-CSV/personal-pursuit-or-advancing-the-common-good-_personal-pursuit.csv
d85453e77ef9d5f88ab47bf14f0eeb07f45c115dd421b52d322a5e77673e7006  UKPConvArg1-Ranking-CSV/pro-choice-vs-pro-life_pro-choice.csv
0d9f04b47e03bc6054ee3fe8359d33b84bd90e4b985034f1b0080f8b29f7817b  UKPConvArg1-Ranking-CSV/pro-choice-vs-pro-life_pro-life.csv
f172a6ef7a3817c4d14c550adb6b5689a766ce052ba8d10ec3e4ab1fba4f118f  UKPConvArg1-Ranking-CSV/should-physical-education-be-mandatory-in-schools-_no-.csv
0ee5ada5bfbcd39c99a4709c3f3976f30e9f4096086a12e88836873ed3bb7fd6  UKPConvArg1-Ranking-CSV/should-physical-education-be-mandatory-in-schools-_yes-.csv
0befe790292122bce7c48b9ca8058450b107202243b1dcd38bef7be87085bcea  UKPConvArg1-Ranking-CSV/tv-is-better-than-books_books.csv
75b337c4e31ddc353fb1e25e3b49161291eb0684c97bf78b6b688bc60562a457  UKPConvArg1-Ranking-CSV/tv-is-better-than-books_tv.csv
b500683ca890c705a6780117804c6334403bf6026cd76e73c7302a70d8f97945  UKPConvArg1-Ranking-CSV/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_no-it-is-raffles-.csv
5f692b6f8cd385f1615f819366e750110f0b78a4e1684645d357743bc5e3da09  UKPConvArg1-Ranking-CSV/william-farquhar-ought-to-be-honoured-as-the-rightful-founder-of-singapore_yes-of-course-.csv"""
# Two file names are misspelt in the release; the side id is the ranking CSV's spelling.
_MISSPELT = {
    "personal-pursuit-or-advancing-the-common-good-_advancing-the-comnong-good": (
        "personal-pursuit-or-advancing-the-common-good-_advancing-the-common-good"
    ),
    "personal-pursuit-or-advancing-the-common-good-_advancing-the-commond-good": (
        "personal-pursuit-or-advancing-the-common-good-_advancing-the-common-good"
    ),
}

LABELS = ["a1", "a2", "equal"]  # the workers' choices: argument 1, argument 2, equally convincing
STRICT_LABELS = ["a1", "a2"]
WORKER_STANCES = ["same", "opposite", "none"]  # the worker's own stance towards the side
_STRICT_HEADER = ["#id", "label", "a1", "a2"]
_TURK_ID = re.compile(r"<turkID>([^<]*)</turkID>")
_RANKING_HEADER = ["#id", "rank", "argument"]

CITATION = """\
@inproceedings{habernal-gurevych-2016-argument,
  title     = {Which argument is more convincing? Analyzing and predicting convincingness of
               Web arguments using bidirectional {LSTM}},
  author    = {Habernal, Ivan and Gurevych, Iryna},
  booktitle = {Proceedings of the 54th Annual Meeting of the Association for Computational
               Linguistics (Volume 1: Long Papers)},
  year      = {2016},
  pages     = {1589--1599},
  address   = {Berlin, Germany},
  publisher = {Association for Computational Linguistics},
  doi       = {10.18653/v1/P16-1150},
  url       = {https://aclanthology.org/P16-1150}
}
"""


def _files() -> dict[str, tuple[str, str]]:
    """``<config>/<side id>`` -> (path, sha256) of that debate side's file in the config's folder."""
    config_of = {folder: config for config, folder in FOLDERS.items()}
    files = {}
    for line in _SHA256SUMS.splitlines():
        sha, path = line.split("  ", 1)
        folder, filename = path.split("/")
        stem = filename.rsplit(".", 1)[0]
        files[f"{config_of[folder]}/{_MISSPELT.get(stem, stem)}"] = (path, sha)
    return files


def decode_line_breaks(text: str) -> str:
    """The CSVs write each line break of the XML text as `` <br/> ``; this undoes it."""
    return text.replace(" <br/> ", "\n")


_string = datasets.Value("string")
_int32 = datasets.Value("int32")
_ARGUMENT = {"id": _string, "text": _string}


class UKPConvArg1(ArgbenchBuilder):
    """Crowd judgments of argument pairs per debate side, the cleaned pairs, and a ranking."""

    VERSION = datasets.Version("1.0.0")
    SOURCES = declare(_BASE, _files())
    HOMEPAGE = "https://github.com/UKPLab/acl2016-convincing-arguments"
    LICENSE = "cc-by-4.0"
    CITATION = CITATION
    DESCRIPTION = (
        "UKPConvArg1: every pair of arguments within 32 debate sides (createdebate.com, "
        "convinceme.net) judged by five crowd workers for which argument is more convincing."
    )
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="full",
            version=VERSION,
            description="one row per argument pair (16,927) with all crowd annotations "
            "(workers pseudonymised) and the estimated gold label",
        ),
        datasets.BuilderConfig(
            name="strict",
            version=VERSION,
            description="the 11,650 pairs of the cleaned corpus (no ties, transitivity-filtered)",
        ),
        datasets.BuilderConfig(
            name="ranking",
            version=VERSION,
            description="the 1,052 arguments with their convincingness score",
        ),
    ]
    DEFAULT_CONFIG_NAME = "full"

    def _features(self) -> datasets.Features:
        name = self.config.name
        if name == "full":
            argument = {**_ARGUMENT, "author": _string, "votes_up": _int32, "votes_down": _int32}
            annotation = {
                "worker": _string,
                "value": datasets.ClassLabel(names=LABELS),
                "reason": _string,
                "worker_stance": datasets.ClassLabel(names=WORKER_STANCES),
                "competence": datasets.Value("float64"),
                "worker_rank": _int32,
                "accept_time": datasets.Value("timestamp[ms, tz=UTC]"),
                "submit_time": datasets.Value("timestamp[ms, tz=UTC]"),
            }
            return datasets.Features(
                {
                    "pair_id": _string,
                    "side_id": _string,
                    "debate": _string,
                    "debate_url": _string,
                    "debate_description": _string,
                    "stance": _string,
                    "arg1": argument,
                    "arg2": argument,
                    "gold_label": datasets.ClassLabel(names=LABELS),
                    "annotations": datasets.List(annotation),
                }
            )
        if name == "strict":
            return datasets.Features(
                {
                    "pair_id": _string,
                    "side_id": _string,
                    "label": datasets.ClassLabel(names=STRICT_LABELS),
                    "arg1": _ARGUMENT,
                    "arg2": _ARGUMENT,
                }
            )
        return datasets.Features(
            {
                "arg_id": _string,
                "side_id": _string,
                "rank": datasets.Value("float64"),
                "text": _string,
            }
        )

    def sides(self, config: str) -> list[str]:
        """The debate sides this builder declares files for, sorted."""
        return sorted(key.split("/", 1)[1] for key in self.SOURCES if key.startswith(f"{config}/"))

    def _split_generators(self, dl_manager):
        # One shard per debate side file: download_and_prepare(num_proc=N) builds them in N
        # processes. Pseudonyms are numbered over all files first, so every shard agrees.
        sides = self.sides(self.config.name)
        pseudonyms = self._worker_pseudonyms(sides) if self.config.name == "full" else {}
        return [
            datasets.SplitGenerator(
                datasets.Split.TRAIN, gen_kwargs={"sides": sides, "pseudonyms": pseudonyms}
            )
        ]

    def _generate_examples(self, sides, pseudonyms):
        config = self.config.name
        self._pseudonyms = pseudonyms
        for side in sides:
            for index, example in getattr(self, f"_{config}")(f"{config}/{side}", side):
                yield f"{side}/{index}", example

    def _worker_pseudonyms(self, sides) -> dict[str, str]:
        """raw worker id -> ``worker_N``, N by first appearance over the sides in order.

        A text scan of the ``<turkID>`` elements (the only ones in the files, each in an
        mTurkAssignment); a worker the scan missed is an error when the rows are built.
        """
        pseudonyms: dict[str, str] = {}
        for side in sides:
            text = self.source_path(f"full/{side}").read_text(encoding="utf-8")
            for worker in _TURK_ID.findall(text):
                pseudonyms.setdefault(unescape(worker), f"worker_{len(pseudonyms) + 1}")
        return pseudonyms

    # -- full (XML) -----------------------------------------------------------------------

    def _full(self, key: str, side: str):
        source = self.SOURCES[key].filename
        try:
            root = ET.parse(self.source_path(key)).getroot()
        except ET.ParseError as error:
            raise DataError(
                f"{self.dataset_name}: {source}: not well-formed XML ({error})"
            ) from None
        if root.tag != "list":
            raise self.error(source, 0, root.tag, "the root element should be <list>")
        seen = set()
        for index, pair in enumerate(root):
            if pair.tag != "annotatedArgumentPair":
                raise self.error(source, index, pair.tag, "expected <annotatedArgumentPair>")
            arg1 = self._argument(source, index, pair, "arg1")
            arg2 = self._argument(source, index, pair, "arg2")
            pair_id = self._text(source, index, pair, "id", nonempty=True)
            if pair_id != f"{arg1['id']}_{arg2['id']}":
                raise self.error(
                    source, index, "id", f"{pair_id!r} is not <arg1 id>_<arg2 id> "
                    f"({arg1['id']}_{arg2['id']})",
                )  # fmt: skip
            if pair_id in seen:
                raise self.error(source, index, "id", f"pair {pair_id!r} occurs twice")
            seen.add(pair_id)
            stance = self._text(source, index, pair, "arg1/stance")
            if self._text(source, index, pair, "arg2/stance") != stance:
                raise self.error(source, index, "arg2/stance", "differs from arg1/stance")
            gold = pair.findtext("goldLabel")
            if gold is not None and gold not in LABELS:
                raise self.error(
                    source, index, "goldLabel", f"expected one of {LABELS}, got {gold!r}"
                )
            yield (
                index,
                {
                    "pair_id": pair_id,
                    "side_id": side,
                    "debate": self._text(source, index, pair, "debateMetaData/title"),
                    "debate_url": self._text(source, index, pair, "debateMetaData/url"),
                    "debate_description": pair.findtext("debateMetaData/description"),
                    "stance": stance,
                    "arg1": arg1,
                    "arg2": arg2,
                    "gold_label": gold,
                    "annotations": self._annotations(source, index, pair),
                },
            )

    def _text(self, source, index, element, path, *, within="", nonempty=False) -> str:
        """Text of ``element/path``; errors name ``within/path`` (``within`` locates ``element``)."""
        value = element.findtext(path)
        field = f"{within}/{path}" if within else path
        if value is None:
            raise self.error(source, index, field, "missing")
        if nonempty and not value.strip():
            raise self.error(source, index, field, "empty")
        return value

    def _int(self, source, index, element, path, *, within="") -> int:
        value = self._text(source, index, element, path, within=within)
        if not (value.isascii() and value.lstrip("-").isdigit()):
            field = f"{within}/{path}" if within else path
            raise self.error(source, index, field, f"expected an integer, got {value!r}")
        return int(value)

    def _argument(self, source, index, pair, name) -> dict:
        return {
            "id": self._text(source, index, pair, f"{name}/id", nonempty=True),
            "text": self._text(source, index, pair, f"{name}/text"),
            "author": self._text(source, index, pair, f"{name}/author"),
            "votes_up": self._int(source, index, pair, f"{name}/voteUpCount"),
            "votes_down": self._int(source, index, pair, f"{name}/voteDownCount"),
        }

    def _annotations(self, source, index, pair) -> list[dict]:
        """The crowd assignments, each worker id replaced by its pseudonym.

        Not carried (see the card): the MTurk HIT and assignment ids and the workers' free-text
        feedback on the HIT (``hitComment``).
        """
        assignments = pair.findall("mTurkAssignments/mTurkAssignment")
        if not assignments:
            raise self.error(source, index, "mTurkAssignments", "no mTurkAssignment")
        annotations = []
        for number, assignment in enumerate(assignments, start=1):
            at = {"within": f"mTurkAssignments/mTurkAssignment[{number}]"}

            def field(name, at=at):
                return f"{at['within']}/{name}"

            worker = self._text(source, index, assignment, "turkID", nonempty=True, **at)
            if worker not in self._pseudonyms:
                raise self.error(source, index, field("turkID"), "not found by the id scan")
            value = self._text(source, index, assignment, "value", **at)
            if value not in LABELS:
                raise self.error(
                    source, index, field("value"), f"expected one of {LABELS}, got {value!r}"
                )
            stance = assignment.findtext("workerStance")
            if stance is not None and stance not in WORKER_STANCES:
                raise self.error(
                    source,
                    index,
                    field("workerStance"),
                    f"expected one of {WORKER_STANCES}, got {stance!r}",
                )
            competence = self._text(source, index, assignment, "turkCompetence", **at)
            try:
                competence_value = float(competence)
            except ValueError:
                competence_value = math.nan
            if not math.isfinite(competence_value):
                raise self.error(
                    source, index, field("turkCompetence"), f"expected a number, got {competence!r}"
                )
            annotations.append(
                {
                    "worker": self._pseudonyms[worker],
                    "value": value,
                    "reason": self._text(source, index, assignment, "reason", **at),
                    "worker_stance": stance,
                    "competence": competence_value,
                    "worker_rank": self._int(source, index, assignment, "turkRank", **at),
                    "accept_time": self._time(
                        source, index, assignment, "assignmentAcceptTime", at
                    ),
                    "submit_time": self._time(
                        source, index, assignment, "assignmentSubmitTime", at
                    ),
                }
            )
        return annotations

    def _time(self, source, index, assignment, name, at) -> datetime:
        """``2016-02-22 21:40:51.0 UTC`` -> an aware datetime."""
        value = self._text(source, index, assignment, name, **at)
        try:
            if not value.endswith(" UTC"):
                raise ValueError
            parsed = datetime.strptime(value[: -len(" UTC")], "%Y-%m-%d %H:%M:%S.%f")
        except ValueError:
            raise self.error(
                source,
                index,
                f"{at['within']}/{name}",
                f"expected 'YYYY-MM-DD hh:mm:ss.f UTC', got {value!r}",
            ) from None
        return parsed.replace(tzinfo=timezone.utc)

    # -- strict and ranking (tab-separated, one header line) ----------------------------------

    def _strict(self, key: str, side: str):
        source = self.SOURCES[key].filename
        for index, (pair_id, label, text1, text2) in tab_lines(self, key, _STRICT_HEADER):
            ids = pair_id.split("_")
            if len(ids) != 2 or not all(ids):
                raise self.error(
                    source, index, "#id", f"expected <arg1 id>_<arg2 id>, got {pair_id!r}"
                )
            if label not in STRICT_LABELS:
                raise self.error(
                    source, index, "label", f"expected one of {STRICT_LABELS}, got {label!r}"
                )
            yield (
                index,
                {
                    "pair_id": pair_id,
                    "side_id": side,
                    "label": label,
                    "arg1": {"id": ids[0], "text": decode_line_breaks(text1)},
                    "arg2": {"id": ids[1], "text": decode_line_breaks(text2)},
                },
            )

    def _ranking(self, key: str, side: str):
        source = self.SOURCES[key].filename
        for index, (arg_id, rank, text) in tab_lines(self, key, _RANKING_HEADER):
            try:
                score = float(rank)
            except ValueError:
                score = math.nan
            if not math.isfinite(score):
                raise self.error(source, index, "rank", f"expected a number, got {rank!r}")
            yield (
                index,
                {
                    "arg_id": arg_id,
                    "side_id": side,
                    "rank": score,
                    "text": decode_line_breaks(text),
                },
            )

    # -- card -----------------------------------------------------------------------------

    @classmethod
    def card_statistics(cls, config, splits):
        ds = splits["train"]
        sides = Counter(ds["side_id"])
        if config == "full":
            gold = Counter(ds["gold_label"])
            annotations = ds["annotations"]
            per_pair = Counter(len(a) for a in annotations)
            values = Counter(a["value"] for pair in annotations for a in pair)
            workers = {a["worker"] for pair in annotations for a in pair}
            arguments: dict[str, set] = {}
            for side, arg1, arg2 in zip(ds["side_id"], ds["arg1"], ds["arg2"], strict=True):
                arguments.setdefault(side, set()).update((arg1["id"], arg2["id"]))
            counts = sorted(len(ids) for ids in arguments.values())
            return [
                f"- pairs: {len(ds):,} in {len(sides)} debate sides; with a gold label: "
                f"{len(ds) - gold[None]:,}, without: {gold[None]:,}",
                "- gold label: "
                + ", ".join(f"{name} {gold[i]:,}" for i, name in enumerate(LABELS)),
                "- annotations per pair: "
                + ", ".join(f"{n}: {c:,} pairs" for n, c in sorted(per_pair.items())),
                f"- annotations: {sum(values.values()):,} ("
                + ", ".join(f"{name} {values[i]:,}" for i, name in enumerate(LABELS))
                + f") by {len(workers):,} workers",
                f"- arguments per side: {counts[0]}–{counts[-1]} "
                f"({sum(counts):,} in all; {sum(c >= 32 for c in counts)} sides with at least 32)",
            ]
        if config == "strict":
            labels = Counter(ds["label"])
            return [
                f"- pairs: {len(ds):,}; label a1 {labels[0]:,}, a2 {labels[1]:,}",
                f"- pairs per side: {min(sides.values())}–{max(sides.values())}",
            ]
        ranks = ds["rank"]
        return [
            f"- arguments: {len(ds):,}; per side {min(sides.values())}–{max(sides.values())}",
            f"- rank score: {min(ranks):.3f}–{max(ranks):.3f}, mean {sum(ranks) / len(ranks):.3f}",
        ]
