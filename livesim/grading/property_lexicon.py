"""The properties shops claim of products, by attribute type: the catalogue's own vocabulary plus the claims a
host might invent (materials, ingredients, allergens, features, certifications, care, compatibility, origin...).

Each line reads `surface, surface, ... : record form, record form`. A surface is how a reply says it (hyphens and
spaces are the same); a record form is what a product's record must hold for the property to be true of it
(default: the surfaces themselves). A record form `a+b` needs both. `livesim.grading.properties` checks every
asserted property against the record: a surface whose record forms the record lacks is unsupported.
"""

from __future__ import annotations

from livesim.world.answers import NATURAL, SYNTHETIC

# natural or synthetic: the world's own lists (what its answers to "real or synthetic?" turn on), so that a reply
# may say of a bamboo box what the truth says of it ("bamboo, a natural material")
_NATURAL = ", ".join(sorted({*NATURAL, "hemp"}))
_ORIGIN_LINES = (f"natural fibre, natural fiber : {_NATURAL}\n"
                 f"natural fabric, natural material, natural materials : {_NATURAL}\n"
                 f"synthetic, synthetic fabric, synthetic fibre, synthetic fiber : {', '.join(sorted(SYNTHETIC))}\n")

_RAW: dict[str, str] = {
    # --- materials and fabrics (apparel, home, electronics bodies)
    "material": """
cotton
organic cotton
pima cotton, supima cotton
egyptian cotton
linen, flax
silk
mulberry silk
wool, woollen, woolen : wool
merino, merino wool
lambswool, lamb wool
cashmere
polyester
recycled polyester
nylon
recycled nylon
spandex, elastane, lycra : spandex
modal
rayon, viscose, lyocell, tencel
acrylic
fleece, sherpa, polar fleece : fleece
denim
chiffon
velvet
satin
lace
mesh
canvas
corduroy
tweed
leather, genuine leather, real leather, full grain leather, suede, nubuck
vegan leather, faux leather, pu leather
goose down, duck down, down filling, down filled, down fill
feather, feathers
hemp
jute
microfibre, microfiber
gore tex, goretex
ceramic, ceramics : ceramic
stoneware
porcelain, bone china
glass : glass
borosilicate, borosilicate glass
tempered glass
stainless steel, steel : steel
aluminium, aluminum, aluminium alloy, aluminum alloy : aluminium
copper
brass
cast iron
titanium
carbon fibre, carbon fiber
metal, metallic : aluminium, steel, iron, copper, brass, titanium
plastic, abs plastic, abs : plastic, polypropylene, abs
polypropylene
silicone
rubber
latex
memory foam
foam : foam, memory foam
wood, wooden, solid wood, hardwood : wood, bamboo
oak
walnut wood
teak
acacia
bamboo
rattan
marble
cork
solid gold, gold plated, 18k gold, 14k gold, rose gold plated
sterling silver, solid silver, silver plated
""" + _ORIGIN_LINES,
    # --- beauty ingredients and other substances
    "ingredient": """
hyaluronic acid, hyaluronate, sodium hyaluronate : hyaluronic acid
niacinamide, vitamin b3 : niacinamide
ceramides, ceramide : ceramides
vitamin c, ascorbic acid : vitamin c
squalane, squalene : squalane
zinc oxide
green tea extract, green tea : green tea extract
panthenol, vitamin b5, pro vitamin b5, provitamin b5 : panthenol
kaolin clay, kaolin : kaolin clay
retinol, retinal, retinoid, retinoids, vitamin a : retinol
bakuchiol
salicylic acid, bha : salicylic acid
glycolic acid, aha, ahas : glycolic acid
lactic acid
azelaic acid
mandelic acid
peptides, peptide, copper peptides, matrixyl
collagen
vitamin e, tocopherol
aloe vera, aloe
shea butter
cocoa butter
jojoba oil
argan oil
rosehip oil
tea tree oil, tea tree
centella, centella asiatica, cica
snail mucin, snail
allantoin
glycerin, glycerine
titanium dioxide
caffeine : caffeine, coffee beans, matcha
alpha arbutin, arbutin
tranexamic acid
licorice root, liquorice
propolis
ginseng
turmeric
rice water, rice extract
rose water, rosewater
witch hazel
charcoal, activated charcoal
gold flakes, gold leaf, 24k gold, 24 karat gold, colloidal gold
spf, sunscreen filters, uv filters
essential oils, essential oil
alcohol, denatured alcohol, ethanol
fragrance, fragranced, perfume, perfumed, parfum, scented : fragrance
parabens, paraben
sulfates, sulphates, sulfate, sulphate, sls
silicones, dimethicone
mineral oil, petrolatum, petroleum
talc
formaldehyde
phthalates, phthalate
oxybenzone
dyes, artificial colours, artificial colors, colourants, colorants
preservatives, preservative
artificial flavours, artificial flavors, artificial flavouring, artificial flavoring
additives, additive
msg
gmo, gmos
bpa
pfas, pfoa
pvc
sugar, added sugar, cane sugar
palm oil
vitamin d, vitamin d3, high in vitamin d, rich in vitamin d : vitamin d
vitamin b12, b12 : vitamin b12
vitamin k
omega 3, omega 3s, omega three, fish oil : omega 3
probiotics, probiotic, live cultures : probiotics
prebiotics, prebiotic
electrolytes
antioxidants, antioxidant, rich in antioxidants, high in antioxidants : antioxidants
iron, rich in iron, high in iron : iron
calcium, rich in calcium, high in calcium : calcium
magnesium
potassium
zinc
fibre, fiber, high fibre, high fiber, rich in fibre, rich in fiber : fibre
superfood, superfoods
""",
    # --- food allergens (the catalogue's food records list them: a closed list)
    "allergen": """
peanuts, peanut : peanuts
nuts, nut : peanuts, tree nuts, nuts
tree nuts, tree nut, almonds, almond, cashews, cashew, walnuts, hazelnuts, hazelnut, pistachios, pecans : tree nuts
milk, dairy, lactose, whey, casein : milk
soy, soya, soybean, soybeans : soy
wheat : wheat
gluten : wheat
eggs, egg : eggs
sesame, sesame seeds : sesame
fish
shellfish, crustaceans, shrimp
mustard
celery
sulphites, sulfites
""",
    # --- functional features
    "feature": """
waterproof, water proof, water resistant, water repellent, splash proof, splashproof, rainproof : waterproof
ipx4, ipx5, ipx6, ipx7, ipx8, ip65, ip67, ip68 : waterproof
sweatproof, sweat proof, sweat resistant
dustproof, dust proof
shockproof, shock proof, drop proof, shock resistant
scratch resistant, scratch proof
noise cancelling, noise canceling, noise cancellation, active noise cancellation, anc
transparency mode
fast charging, quick charge, quick charging, fast charge, pd charging, super fast charging
wireless charging, qi charging, qi, magsafe
usb c, type c
lightning port, lightning connector
bluetooth, bluetooth 5, bluetooth 5.0, bluetooth 5.3
wifi, wi fi
nfc
gps
heart rate monitor, heart rate, heart rate tracking, spo2, blood oxygen, ecg, blood pressure
sleep tracking
touchscreen, touch screen, amoled, oled
4k, 1080p, 8k
image stabilisation, image stabilization, stabilisation, stabilization
night vision
voice assistant, alexa, siri, google assistant
built in mic, built in microphone, microphone
hot swappable, hot swap
rgb, rgb lighting, backlit, backlight
wireless : wireless
solar powered, solar charging
microsd, micro sd, expandable storage
5g
dual sim
app control, app controlled, companion app
touch controls, touch control
uv protection, upf, upf 50, upf50
moisture wicking, sweat wicking
quick dry, quick drying, fast drying
thermal, insulated, thermal insulation : thermal, insulated, down jacket
windproof, wind proof, windbreaker
wrinkle free, wrinkle resistant, crease resistant, non iron, no iron
fire retardant, flame retardant, fireproof, fire proof, fire resistant, flame resistant : fire retardant
fully assembled, pre assembled, preassembled, comes assembled, arrives assembled : assembled
no assembly required, no assembly needed, tool free assembly : assembled
anti pilling, pill resistant
stretchy, four way stretch, 4 way stretch, stretch fabric : stretchy, spandex
reversible
reflective
antibacterial, anti bacterial, antimicrobial, anti odour, anti odor, odour resistant, odor resistant
breathable : breathable, linen, cotton
microwave safe
oven safe
freezer safe
non slip, anti slip
non stick, nonstick
foldable, collapsible
stackable
leak proof, leakproof, airtight, air tight
heat resistant
cordless
rechargeable
dimmable
timer, auto shut off, auto off, automatic shut off
remote control
removable cover, washable cover
adjustable
high waisted, high waist, high rise, mid rise, low rise, low waisted
pockets, side pockets, zip pocket, zip pockets, zipper pocket, zipped pocket, phone pocket, hidden pocket
hidden pockets, back pocket, back pockets, deep pockets, pocketed
drawstring, drawstring waist, drawcord
elastic waist, elastic waistband, elasticated waist, elasticated
seamless
compression, compression fit
tummy control, butt lift, shapewear
padded, padding, removable pads, built in bra, built in shelf bra, shelf bra
fully lined, lining, lined inside
thumbholes, thumb holes, thumbhole
hooded : hoodie
zip up, full zip, half zip, quarter zip, zipper, zipped
non see through, opaque
""",
    # --- certifications, labels, free-from and diet claims
    "certification": """
organic, certified organic, usda organic : organic
fda approved, fda cleared, fda registered
ce certified, ce marked
fcc certified
rohs
oeko tex, oekotex, oeko tex certified
gots, gots certified
fair trade, fairtrade
rainforest alliance
fsc, fsc certified
non gmo
halal
kosher
vegan
vegetarian
cruelty free, leaping bunny, not tested on animals
dermatologist tested, dermatologist approved, dermatologist recommended, dermatologically tested
clinically tested, clinically proven
ophthalmologist tested
allergy tested
hypoallergenic
non comedogenic, noncomedogenic
ph balanced
reef safe
food grade, food safe
medical grade
mfi certified, mfi
energy star
ul certified, ul listed
hi res audio, hi res
eco friendly, environmentally friendly, sustainable, sustainably sourced, ethically sourced
biodegradable
compostable
recyclable, recycled
handmade, hand made, handcrafted, hand crafted
award winning, won an award, won awards, won an industry award, won a design award : award winning
prize winning, multi award winning : award winning
eco certified, eco label, eco labelled, eco labeled, green certified : eco certified
carbon neutral, climate neutral, net zero : carbon neutral
patented
lab tested, third party tested
child safe, kid safe, baby safe, safe for babies, safe for kids, pet safe
keto, keto friendly, low carb, paleo
low sugar, no added sugar, sugar free, unsweetened
low fat, fat free
low calorie
high protein
whole grain, wholegrain
grass fed
free range
wild caught
raw, unpasteurised, unpasteurized
all natural, natural ingredients, 100 natural
lead free
""",
    # --- care instructions (the catalogue's care vocabulary and the usual others)
    "care": """
machine washable, machine wash, machine wash safe : machine wash cold, machine wash warm
in the machine on cold, washing machine on cold, machine wash on cold, cold machine wash : machine wash cold
machine wash in cold water, on a cold cycle, cold cycle, cold wash cycle : machine wash cold
in the machine on warm, washing machine on warm, machine wash on warm, warm machine wash : machine wash warm
machine wash in warm water, on a warm cycle, warm cycle, warm wash cycle : machine wash warm
hand wash, hand washable, hand wash only, hand washing, hand washed, hand wash it : hand wash only
wash by hand, wash it by hand, wash them by hand, washed by hand, washing by hand : hand wash only
dry clean, dry clean only, dry cleaning, dry cleaned, dry clean it : dry clean only
wipe clean, wipe it clean, wipe down, wipe it down, wipe them clean, wiped clean, wiped down : wipe clean
wipe with a damp cloth, wipe it with a damp cloth : wipe clean
dishwasher safe, dishwasher, dish washer : dishwasher safe
tumble dry, tumble dryer, tumble dried
iron it, ironing, ironed, ironable
bleach, bleached
spot clean
""",
    # --- what it suits and how it fits (the records' skin types, fits and tags)
    "suits": """
dry skin : dry skin, all skin types
oily skin : oily skin, all skin types
sensitive skin : sensitive skin, all skin types
combination skin : combination skin, all skin types
acne prone skin, acne prone : all skin types, acne prone skin
mature skin, ageing skin, aging skin : all skin types, mature skin
normal skin : all skin types, normal skin
all skin types, every skin type, any skin type : all skin types
regular fit
slim fit, slim cut, skinny fit
loose fit, relaxed fit, oversized, oversize
runs small, runs big, runs large
""",
    # --- compatibility (the records list operating systems)
    "compatibility": """
ios : ios
iphone, iphones, ipad, ipads : ios
android : android
windows, pc : windows
macos, mac, macs, macbook, macbooks, imac : macos
harmonyos, harmony os, huawei : harmonyos
linux, chromeos, chromebook, chrome os
samsung, xiaomi, oppo, vivo, pixel : android
playstation, ps5, ps4, xbox, nintendo switch
smart tv, smart tvs
all phones, any phone, every phone, all smartphones, any smartphone : ios+android
both ios and android, iphone and android : ios+android
all devices, any device, every device, universal, cross platform : ios+android+windows+macos
all systems, every system, any system : ios+android+windows+macos
""",
    # --- flavours and storage (food records)
    "flavour": """
original flavour, original flavor, original taste : original
classic flavour, classic flavor, classic taste : classic
plain flavour, plain flavor, unflavoured, unflavored : plain
spicy : spicy, chili lime
black pepper, peppered : black pepper
sea salt, salted : sea salt
unsalted
honey roasted : honey roasted
chili lime, chilli lime : chili lime
matcha
dark roast
medium roast
light roast
decaf, decaffeinated
smoked, smoky
barbecue, bbq
teriyaki
garlic
vanilla
caramel, salted caramel
mint, peppermint
strawberry
cinnamon
""",
    "storage": """
refrigerate, refrigerated, refrigeration, fridge : refrigerate after opening
cool dry place, cool and dry, cool dry spot, room temperature, shelf stable : keep in a cool dry place
freeze, freezer, frozen
""",
    # --- origin (no record holds where anything is made or sourced)
    "origin": """
made in china, made in japan, made in korea, made in italy, made in france, made in germany : made in
made in the usa, made in usa, made in the uk, made in vietnam, made in thailand, made in taiwan : made in
made in europe : made in
imported, imported from
italian leather, italian made, japanese made, german made, swiss made, korean made, french made
locally sourced, locally made, local farms, single origin, single estate
""",
}

# "<origin> <thing>": where a material, food or product comes from (an origin word alone is not a claim)
_ORIGIN_ADJ = ("new zealand", "australian", "mongolian", "belgian", "swiss", "colombian", "ethiopian", "brazilian",
               "japanese", "korean", "italian", "french", "german", "scandinavian", "turkish", "peruvian", "egyptian",
               "chinese", "american", "british", "spanish", "vietnamese", "thai", "indian", "yunnan")
_ORIGIN_NOUN = ("cotton", "leather", "wool", "cashmere", "silk", "linen", "denim", "coffee", "beans", "chocolate",
                "cocoa", "honey", "matcha", "tea", "ceramic", "ceramics", "porcelain", "craftsmanship", "design",
                "brand", "quality", "made", "beef", "mango", "mangoes", "nuts", "skincare", "formula", "bamboo", "wood",
                "import", "imports", "factory")
_RAW["origin"] += "".join(", ".join(f"{a} {n}" for n in _ORIGIN_NOUN) + "\n" for a in _ORIGIN_ADJ)

# a machine wash at a temperature, said the ways people say it ("machine wash it on cold", "a cold machine wash")
_MACHINE_FORMS = ("machine wash {t}", "{t} machine wash", "machine wash on {t}", "machine wash it {t}",
                  "machine wash it on {t}", "machine wash in {t} water", "machine wash it in {t} water",
                  "machine washable on {t}", "machine washable in {t} water", "machine washable {t}",
                  "{t} water machine wash")
_RAW["care"] += "".join(", ".join(f.format(t=t) for f in _MACHINE_FORMS) + f" : machine wash {t}\n"
                        for t in ("cold", "warm"))

# The couriers a host might name: no record holds which courier carries an order.
COURIERS: tuple[str, ...] = (
    "sf express", "sf", "shunfeng", "jd logistics", "jd express", "jd delivery", "ems", "china post", "yto", "zto",
    "sto", "yunda", "best express", "j&t", "j t express", "jt express", "deppon", "cainiao", "dhl", "fedex", "ups",
    "usps", "royal mail", "tnt", "aramex", "dpd",
)

# Product property types whose record list is complete: a free-from claim is true when the list lacks the base.
CLOSED_LISTS: dict[str, str] = {"allergen": "allergens"}


def _parse() -> dict[str, tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]]:
    out: dict[str, tuple[tuple[tuple[str, ...], str, tuple[str, ...]], ...]] = {}
    for kind, block in _RAW.items():
        rows = []
        for line in block.strip().splitlines():
            surf, _, rec = line.partition(" : ")
            surfaces = tuple(s.strip() for s in surf.split(",") if s.strip())
            forms = tuple(s.strip() for s in rec.split(",") if s.strip()) or surfaces
            rows.append((surfaces, surfaces[0], forms))
        out[kind] = tuple(rows)
    return out


# kind -> ((surfaces, canonical, record forms), ...)
LEXICON = _parse()
