package service

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/interlinker/interlinker/domain/markup"
	"github.com/interlinker/interlinker/events"
)

// This file generates "Cadence Cycles", a synthetic SAG site for the
// acceptance tests (acceptance_test.go). It is not the bundled example
// (examples/outdoor-gear): another trade, other URLs, other wording, so
// the tests do not pass only because the planner was tuned on one site.
//
// Shape (50 pages):
//   - home page "home" at /;
//   - 2 sector pages, "bikes" at /bikes/ and "gear" at /gear/;
//   - 8 clusters (tsClusters), 4 in each sector, each with a hub (page id =
//     cluster id) and 4 supporting articles;
//   - 3 attributes, terrain (road, gravel, trail, city), material (carbon,
//     aluminium, steel) and season (summer, winter, all-season), whose
//     values the clusters share: every hub shares a value with at least 5
//     other hubs and two or more values with at least 2 of them;
//   - 4 term pages: "gravel-riding" (terrain=gravel) at /bikes/gravel/,
//     which is the parent path of the gravel-bikes hub, so that hub's pages
//     have an attribute step in their breadcrumbs; "winter-cycling"
//     (season=winter), "carbon-components" (material=carbon) and
//     "steel-bikes" (material=steel), which are facets, not parents;
//   - 4 products: "ferrous-gr" in the gravel-bikes cluster, "beacon-1200"
//     outside clusters (sector gear; season=winter, terrain=city),
//     "aero-50" outside clusters and sectors (material=carbon,
//     terrain=road) and "cityline-fenders" outside clusters (sector gear;
//     terrain=city, season=all-season), which no hub names and no term
//     page lists: only its closest cluster's hub (bike-lights, of its
//     sector, sharing as much as commuter-bikes) links it.
//
// The prose is built from templates with the rules' anchors in mind:
//   - each supporting article names its hub's primary keyword in paragraph
//     1 or 2, in one of four wordings (some also give the hub's title or a
//     keyword variation there), and names two siblings further down, one by
//     its primary keyword and one by a keyword variation;
//   - each hub names its four articles (primary keyword or variation, one
//     per paragraph), the hubs of 2–3 clusters it shares values with (one
//     per paragraph: the first by its primary keyword, the others by a
//     keyword variation) and the products sharing its values;
//   - the home page names every hub's primary keyword and both sectors,
//     two per paragraph, more than 50 words apart;
//   - product pages name their hubs.
//
// Everything is deterministic: the same siteID gives the same events.

// tsSiteName is the generated site's name, the home crumb's text.
const tsSiteName = "Cadence Cycles"

type tsArticle struct {
	id, title, pk string
	kws           []string
	topic         [2]string // two sentences on the article's subject
	heading       string
}

type tsCluster struct {
	id, sector, name, pk string
	kws                  []string
	attrs                map[string][]string
	title, url           string
	intro                string    // the hub's first paragraph after its keyword
	lines                [6]string // sentences of the trade, to fill paragraphs
	partners             []string  // clusters whose hubs the hub names
	articles             [4]tsArticle
}

type tsProduct struct {
	id, title, url, pk, cluster, sector string
	kws                                 []string
	attrs                               map[string][]string
	namedBy                             []string // hubs whose text names it
	hubs                                []string // hubs its own text names
	body                                [3]string
}

type tsTerm struct {
	id, title, url, pk, sector string
	kws                        []string
	attrs                      map[string][]string
	body                       [3]string
}

var tsSectors = []events.SectorInfo{
	{ID: "bikes", Name: "Bikes", URL: "/bikes/"},
	{ID: "gear", Name: "Parts & Gear", URL: "/gear/"},
}

var tsAttributes = []events.AttributeInfo{
	{ID: "terrain", Name: "terrain", Values: []string{"road", "gravel", "trail", "city"}},
	{ID: "material", Name: "material", Values: []string{"carbon", "aluminium", "steel"}},
	{ID: "season", Name: "season", Values: []string{"summer", "winter", "all-season"}},
}

var tsClusters = []tsCluster{
	{
		id: "gravel-bikes", sector: "bikes", name: "Gravel Bikes", pk: "gravel bikes",
		kws:   []string{"gravel bike", "adventure bikes", "all-road bikes"},
		attrs: map[string][]string{"terrain": {"gravel"}, "material": {"steel", "aluminium"}, "season": {"all-season"}},
		title: "Gravel Bikes Explained: Frames, Clearance and Gearing", url: "/bikes/gravel/gravel-bikes/",
		intro: "borrow the drop bars of a road bike, the clearance of a cyclocross frame and the mounts of a touring bike, and the result is a machine that is happy on tarmac in the morning and on forest fire roads by lunch.",
		lines: [6]string{
			"Steel frames soak up washboard surfaces better than most riders expect, while aluminium keeps the weight down for racing.",
			"Most of our customers ride a mix of lanes, towpaths and forest tracks rather than one kind of surface.",
			"A relaxed head angle and a long wheelbase keep the front end calm when the gravel gets loose.",
			"Mounting points for bottles, racks and mudguards decide how far a frame can take you.",
			"Wider rubber at lower pressure does more for comfort than any seatpost or stem.",
			"The right setup is the one that still feels good after five hours in the saddle.",
		},
		partners: []string{"commuter-bikes", "bike-tyres", "bike-wheels"},
		articles: [4]tsArticle{
			{id: "gravel-tyre-clearance", title: "How Much Tyre Clearance Does a Gravel Bike Need?", pk: "gravel tyre clearance", kws: []string{"frame clearance", "mud clearance"},
				topic:   [2]string{"Clearance is the gap between the tyre and the frame, and it decides which tyres you can fit today and which you can fit next year.", "Leave at least six millimetres on each side so that a little mud does not lock the wheel."},
				heading: "Measuring the gap"},
			{id: "gravel-bike-gearing", title: "Gravel Bike Gearing: One Chainring or Two?", pk: "gravel bike gearing", kws: []string{"single chainring drivetrains", "gravel gear ratios"},
				topic:   [2]string{"A single chainring is simple and quiet on rough ground, while a double gives closer steps between gears on long road stretches.", "What matters most is the lowest gear, because loaded climbs on loose surfaces are where riders run out of options."},
				heading: "Counting the teeth"},
			{id: "bikepacking-bags", title: "Bikepacking Bags for Your First Overnighter", pk: "bikepacking bags", kws: []string{"frame bags", "seat packs"},
				topic:   [2]string{"Bikepacking luggage straps to the frame, the bars and the seatpost instead of hanging from racks, so the bike stays narrow and nimble.", "Pack the heavy things low and in the middle, and keep the soft things at the ends where they cannot rattle."},
				heading: "Where the weight goes"},
			{id: "gravel-bike-fit", title: "Gravel Bike Fit: Finding a Comfortable Position", pk: "gravel bike fit", kws: []string{"gravel riding position", "handlebar flare"},
				topic:   [2]string{"A gravel position is a little taller and shorter than a road position, because you spend more time on the hoods and more time out of the saddle.", "Flared bars give more control on descents, but they change the reach, so set them up before you move the saddle."},
				heading: "Reach and stack"},
		},
	},
	{
		id: "road-bikes", sector: "bikes", name: "Road Bikes", pk: "road bikes",
		kws:   []string{"road bike", "endurance road bikes", "race bikes"},
		attrs: map[string][]string{"terrain": {"road"}, "material": {"carbon", "aluminium"}, "season": {"summer"}},
		title: "Road Bikes: A Buyer's Guide to Speed and Comfort", url: "/bikes/road-bikes/",
		intro: "are built for smooth tarmac, long summer days and the simple pleasure of going fast under your own power, and the differences between models matter more than the price tags suggest.",
		lines: [6]string{
			"An endurance geometry puts you a little more upright for long days, while a race geometry rewards flexibility.",
			"Carbon frames can be tuned to be stiff where it matters and compliant where it does not.",
			"Modern aluminium frames ride far better than their reputation from twenty years ago.",
			"Twenty-eight millimetre tyres have become the sensible default on most new frames.",
			"Disc brakes have made wet descents calmer and more predictable for everyone.",
			"A professional fit often does more for speed than a lighter set of components.",
		},
		partners: []string{"bike-wheels", "mountain-bikes", "cycling-clothing"},
		articles: [4]tsArticle{
			{id: "carbon-vs-aluminium-road-frames", title: "Carbon vs Aluminium Road Frames", pk: "carbon road frames", kws: []string{"aluminium road frames", "frame materials"},
				topic:   [2]string{"Carbon lets a designer place stiffness exactly where it is needed, while aluminium gives honest performance at a lower price.", "Crash damage is the real difference: aluminium dents visibly, whereas carbon may hide a crack that needs an expert eye."},
				heading: "Stiffness, comfort and cost"},
			{id: "road-bike-sizing", title: "Road Bike Sizing: Stack, Reach and Saddle Height", pk: "road bike sizing", kws: []string{"frame size charts", "saddle height"},
				topic:   [2]string{"Stack and reach describe a frame far better than the number printed on the seat tube, because every brand measures that number differently.", "Set the saddle height first, then the setback, and only then think about stem length."},
				heading: "Reading a geometry chart"},
			{id: "climbing-gears", title: "Climbing Gears for Hilly Road Rides", pk: "climbing gears", kws: []string{"compact chainsets", "wide-range cassettes"},
				topic:   [2]string{"Most riders are better served by a compact chainset and a wide cassette than by the race gearing their bike came with.", "Spinning a low gear on a long climb saves your legs for the last hour of the ride."},
				heading: "Gear ratios that make sense"},
			{id: "group-ride-etiquette", title: "Group Ride Etiquette for New Road Cyclists", pk: "group ride etiquette", kws: []string{"riding in a group", "paceline riding"},
				topic:   [2]string{"Hold your line, point out hazards and never brake suddenly in the middle of the bunch.", "A smooth rotation through the group is faster and safer than a few strong riders pulling all day."},
				heading: "Signals and rotations"},
		},
	},
	{
		id: "mountain-bikes", sector: "bikes", name: "Mountain Bikes", pk: "mountain bikes",
		kws:   []string{"mountain bike", "trail bikes", "hardtail bikes"},
		attrs: map[string][]string{"terrain": {"trail"}, "material": {"aluminium", "carbon"}, "season": {"summer"}},
		title: "Mountain Bikes: Hardtail, Full Suspension and Everything Between", url: "/bikes/mountain-bikes/",
		intro: "range from simple hardtails for forest loops to long-travel machines for lift-served descents, and choosing well starts with an honest look at the trails you actually ride.",
		lines: [6]string{
			"Suspension travel should match the steepest trail you ride regularly, not the one you dream about.",
			"Longer, lower and slacker frames have made technical descents far less intimidating.",
			"Aluminium frames take knocks from rocks and crashes without much worry.",
			"Carbon frames save weight on the climbs and damp trail chatter on the way down.",
			"Tyre choice changes the character of a bike more than any other single part.",
			"A good suspension setup costs nothing but an afternoon and a shock pump.",
		},
		partners: []string{"road-bikes", "bike-wheels"},
		articles: [4]tsArticle{
			{id: "suspension-setup", title: "Suspension Setup: Sag, Rebound and Pressure", pk: "suspension setup", kws: []string{"fork sag", "rebound damping"},
				topic:   [2]string{"Sag is how far the suspension compresses under your weight, and it is the first number to get right.", "Rebound controls how fast the fork returns, and too little damping makes the bike buck on rough ground."},
				heading: "Setting sag"},
			{id: "hardtail-vs-full-suspension", title: "Hardtail vs Full Suspension: Which Suits Your Trails?", pk: "full suspension bikes", kws: []string{"rear suspension", "hardtail or full suspension"},
				topic:   [2]string{"A hardtail is lighter, cheaper and teaches precise line choice, while rear suspension keeps the tyre on the ground over roots and rocks.", "For rough and steep trails the extra comfort of rear travel is worth its weight."},
				heading: "Comfort against simplicity"},
			{id: "dropper-posts", title: "Dropper Posts: Why Every Trail Rider Wants One", pk: "dropper posts", kws: []string{"dropper seatposts", "dropper lever"},
				topic:   [2]string{"A dropper lets you drop the saddle out of the way at the push of a lever and raise it again for the next climb.", "Choose the longest travel that fits your frame and leg length."},
				heading: "Travel and fit"},
			{id: "mtb-braking-technique", title: "Braking Technique on Steep Trails", pk: "mtb braking technique", kws: []string{"braking on descents", "disc brake control"},
				topic:   [2]string{"Brake before the steep section, not in it, and let the bike roll where traction is poor.", "One finger on each lever gives enough power with modern disc brakes and leaves the rest of your hand on the grip."},
				heading: "Where to brake"},
		},
	},
	{
		id: "commuter-bikes", sector: "bikes", name: "Commuter Bikes", pk: "commuter bikes",
		kws:   []string{"commuter bike", "city bikes", "urban bikes"},
		attrs: map[string][]string{"terrain": {"city", "road"}, "material": {"steel", "aluminium"}, "season": {"all-season", "winter"}},
		title: "Commuter Bikes: Riding to Work Every Day", url: "/bikes/commuter-bikes/",
		intro: "have to start every morning, in every season, with the least possible fuss, so reliability and practicality matter more here than grams or aerodynamics.",
		lines: [6]string{
			"Mudguards, a rack and good lights turn any bike into a year-round commuter.",
			"A steel frame shrugs off the knocks of a crowded bike shed.",
			"Puncture-resistant tyres save more time than any amount of speed training.",
			"Upright handlebars give a better view over traffic than drops.",
			"Low-maintenance parts pay for themselves within a single winter.",
			"Secure parking at work is worth checking before you buy an expensive bike.",
		},
		partners: []string{"bike-lights", "gravel-bikes", "bike-tyres"},
		articles: [4]tsArticle{
			{id: "mudguards-and-racks", title: "Mudguards and Racks for Year-Round Commuting", pk: "mudguards and racks", kws: []string{"full mudguards", "pannier racks"},
				topic:   [2]string{"Full-length mudguards keep your clothes clean and the bike's drivetrain free of road grit.", "A rack carries the load instead of your back, so you arrive at work without a sweaty shirt."},
				heading: "Fitting them properly"},
			{id: "bike-locks", title: "Choosing Bike Locks That Thieves Hate", pk: "bike locks", kws: []string{"d-locks", "folding locks"},
				topic:   [2]string{"A good lock buys time, and thieves move on to easier targets when a bike takes too long to steal.", "Lock the frame and the rear wheel to something solid, and use a second lock for the front wheel in busy cities."},
				heading: "How thieves work"},
			{id: "winter-commuting", title: "Winter Commuting Without the Misery", pk: "winter commuting", kws: []string{"commuting in the dark", "cold weather commuting"},
				topic:   [2]string{"Short days mean riding in the dark both ways, so visibility comes first.", "Salt eats chains and cables, so a quick rinse after wet rides keeps the bike running until spring."},
				heading: "Staying warm and seen"},
			{id: "hub-gears", title: "Hub Gears for Low-Maintenance Commutes", pk: "hub gears", kws: []string{"internal gear hubs", "belt drives"},
				topic:   [2]string{"An internal gear hub hides the gears inside the rear wheel, away from water, salt and grit.", "Paired with a belt drive it needs almost no attention for thousands of kilometres."},
				heading: "Inside the hub"},
		},
	},
	{
		id: "bike-tyres", sector: "gear", name: "Bike Tyres", pk: "bike tyres",
		kws:   []string{"bike tyre", "tubeless tyres", "gravel tyres"},
		attrs: map[string][]string{"terrain": {"road", "gravel", "trail"}, "season": {"all-season", "winter"}},
		title: "Bike Tyres: Width, Pressure and Tubeless Setups", url: "/gear/bike-tyres/",
		intro: "are the only part of the bike that touches the ground, which makes them the cheapest upgrade that changes how every ride feels.",
		lines: [6]string{
			"Wider tyres at lower pressures roll faster on real roads than narrow ones pumped rock hard.",
			"Supple casings cost more but make any bike feel livelier.",
			"Tread only matters on loose surfaces; on tarmac a slick grips best.",
			"Sealant seals most small punctures before you even notice them.",
			"Rubber compounds harden in the cold, so winter tyres use softer mixes.",
			"Check the wear indicators before every long trip.",
		},
		partners: []string{"gravel-bikes", "bike-lights", "cycling-clothing"},
		articles: [4]tsArticle{
			{id: "tyre-pressure", title: "Tyre Pressure: Finding the Right Number", pk: "tyre pressure", kws: []string{"pressure charts", "pressure for wide tyres"},
				topic:   [2]string{"The right pressure depends on rider weight, tyre width and surface, not on the maximum printed on the sidewall.", "Start from a chart, then drop a little at a time until the bike feels calm on rough roads."},
				heading: "Using a chart"},
			{id: "tubeless-setup", title: "Tubeless Setup Step by Step", pk: "tubeless setup", kws: []string{"tubeless sealant", "tubeless valves"},
				topic:   [2]string{"Tubeless tyres seal against the rim without an inner tube, with liquid sealant to plug small holes.", "A clean rim, good tape and a strong burst of air are the three secrets of a first-time seat."},
				heading: "Taping the rim"},
			{id: "winter-tyres", title: "Winter Tyres for Ice and Wet Roads", pk: "winter tyres", kws: []string{"studded tyres", "puncture-resistant tyres"},
				topic:   [2]string{"Winter roads are wet, gritty and full of debris, which is exactly when punctures happen.", "Studs are only worth their weight and noise where ice is common."},
				heading: "When studs make sense"},
			{id: "fixing-a-puncture", title: "Fixing a Puncture at the Roadside", pk: "fixing a puncture", kws: []string{"puncture repair", "tyre levers"},
				topic:   [2]string{"Find the cause before you fit a new tube, or the same thorn will flatten it again a minute later.", "Two plastic levers, a spare tube and a small pump are all the kit you need."},
				heading: "Finding the cause"},
		},
	},
	{
		id: "bike-wheels", sector: "gear", name: "Bike Wheels", pk: "bike wheels",
		kws:   []string{"bike wheel", "carbon wheels", "wheelsets"},
		attrs: map[string][]string{"terrain": {"road", "gravel"}, "material": {"carbon", "aluminium"}, "season": {"summer"}},
		title: "Bike Wheels: Rims, Hubs and Spokes Demystified", url: "/gear/bike-wheels/",
		intro: "do more to change how a bike accelerates and climbs than any other upgrade, and they are also where a little knowledge saves the most money.",
		lines: [6]string{
			"Rim width now matters as much as rim depth, because it shapes the tyre.",
			"Carbon rims save weight and add stiffness, while aluminium rims are cheaper and easier to repair.",
			"Hub engagement decides how quickly power reaches the rear wheel after a pause.",
			"More spokes make a stronger wheel; fewer spokes make a lighter one.",
			"A well-built wheel stays true for years with a little care.",
			"Tubeless-ready rims have become the norm on road and gravel wheels alike.",
		},
		partners: []string{"road-bikes", "gravel-bikes"},
		articles: [4]tsArticle{
			{id: "rim-depth", title: "Rim Depth and Aerodynamics", pk: "rim depth", kws: []string{"deep section rims", "aero wheels"},
				topic:   [2]string{"Deeper rims cut through the air with less drag, but catch crosswinds on exposed roads.", "For most riders a depth between forty and fifty millimetres is the sweet spot."},
				heading: "Drag and crosswinds"},
			{id: "wheel-truing", title: "Wheel Truing at Home", pk: "wheel truing", kws: []string{"truing stand", "spoke tension"},
				topic:   [2]string{"Truing means adjusting spoke tension until the rim runs straight and round again.", "Small quarter turns and patience work better than big corrections."},
				heading: "Quarter turns"},
			{id: "hub-bearings", title: "Hub Bearings: Cartridge or Cup and Cone", pk: "hub bearings", kws: []string{"cartridge bearings", "freehub service"},
				topic:   [2]string{"Cartridge bearings are sealed units you replace, while cup and cone bearings can be adjusted and serviced for decades.", "A rough or notchy feel when you turn the axle by hand is the sign that service is due."},
				heading: "Feeling for wear"},
			{id: "wheel-upgrades", title: "The Best Wheel Upgrades for the Money", pk: "wheel upgrades", kws: []string{"lighter wheels", "upgrade wheelset"},
				topic:   [2]string{"Stock wheels are where many brands save money, which makes them the obvious first upgrade.", "Lighter rims and better hubs make a bike feel quicker every time you accelerate."},
				heading: "Where the savings are"},
		},
	},
	{
		id: "cycling-clothing", sector: "gear", name: "Cycling Clothing", pk: "cycling clothing",
		kws:   []string{"cycling jerseys", "bike shorts", "cycling kit"},
		attrs: map[string][]string{"terrain": {"road", "gravel"}, "season": {"summer", "winter"}},
		title: "Cycling Clothing: What to Wear on the Bike", url: "/gear/cycling-clothing/",
		intro: "is designed around the riding position, the wind and the sweat, which is why a proper jersey and shorts feel so different from ordinary sportswear.",
		lines: [6]string{
			"Layers let you adjust to a cold start and a warm afternoon on the same ride.",
			"A good chamois matters more on long rides than anything else you wear.",
			"Bright colours and reflective details make you easier to see at dusk.",
			"Merino base layers stay warm when damp and do not smell after a long day.",
			"Windproof fronts and breathable backs keep the chill off without overheating.",
			"Wash technical fabrics cool and skip the fabric softener.",
		},
		partners: []string{"bike-tyres", "bike-lights", "road-bikes"},
		articles: [4]tsArticle{
			{id: "bib-shorts", title: "Bib Shorts: Chamois, Fit and Care", pk: "bib shorts", kws: []string{"chamois pads", "padded shorts"},
				topic:   [2]string{"Bibs stay in place without a waistband digging into your stomach, which is why most regular riders prefer them.", "The chamois should sit snugly with no wrinkles, and it is worn without underwear."},
				heading: "Finding the fit"},
			{id: "winter-cycling-jackets", title: "Winter Cycling Jackets and Layering", pk: "winter cycling jackets", kws: []string{"layering for cold rides", "thermal jerseys"},
				topic:   [2]string{"Layering beats one thick jacket, because you can open a zip or stow a layer as you warm up.", "A windproof front and a breathable back keep you comfortable on long climbs and cold descents."},
				heading: "Three layers"},
			{id: "cycling-shoes", title: "Cycling Shoes and Cleats", pk: "cycling shoes", kws: []string{"clipless pedals", "cleat setup"},
				topic:   [2]string{"Stiff soles pass more of your effort to the pedals and spread pressure across the foot.", "Set the cleats so that the ball of the foot sits just ahead of the pedal axle."},
				heading: "Cleat position"},
			{id: "cycling-waterproofs", title: "Riding in the Rain: Waterproofs That Work", pk: "cycling waterproofs", kws: []string{"waterproof cycling jackets", "overshoes"},
				topic:   [2]string{"A good waterproof keeps rain out without trapping every drop of sweat inside.", "Overshoes and mudguards do as much for comfort in the wet as the jacket does."},
				heading: "Staying dry"},
		},
	},
	{
		id: "bike-lights", sector: "gear", name: "Bike Lights", pk: "bike lights",
		kws:   []string{"bike light", "front lights", "rear lights"},
		attrs: map[string][]string{"terrain": {"city", "road"}, "season": {"winter", "all-season"}},
		title: "Bike Lights: See and Be Seen", url: "/gear/bike-lights/",
		intro: "do two jobs, showing you the road ahead and showing everyone else where you are, and the best setups treat those as separate problems.",
		lines: [6]string{
			"A bright front beam matters on unlit lanes, while a flashing rear light matters everywhere.",
			"Side visibility at junctions is where many lights fall short.",
			"Rechargeable lights have made batteries and their costs a thing of the past.",
			"A beam shaped like a car's dipped headlight avoids dazzling oncoming riders.",
			"Daytime flash modes make riders stand out even in bright sunshine.",
			"Carry a small backup light on long winter rides.",
		},
		partners: []string{"commuter-bikes", "cycling-clothing"},
		articles: [4]tsArticle{
			{id: "lumens-explained", title: "Lumens Explained: How Bright Is Bright Enough?", pk: "light lumens", kws: []string{"beam patterns", "lumen ratings"},
				topic:   [2]string{"Lumens measure the total light output, but the beam pattern decides how much of it lands on the road.", "For lit city streets a few hundred lumens is plenty, while dark lanes call for a thousand or more."},
				heading: "Output and beam"},
			{id: "daytime-running-lights", title: "Daytime Running Lights for Cyclists", pk: "daytime running lights", kws: []string{"daytime flash modes", "visibility in daylight"},
				topic:   [2]string{"Studies of daytime running lights show fewer collisions for riders who use them.", "An irregular flash pattern catches the eye of drivers better than a steady beam."},
				heading: "Why flash"},
			{id: "light-battery-life", title: "Battery Life and Charging for Bike Lights", pk: "light battery life", kws: []string{"usb charging", "run times"},
				topic:   [2]string{"Quoted run times are measured on the lowest setting, so real rides drain a battery faster.", "Cold shortens battery life, so charge after every winter ride."},
				heading: "Real run times"},
			{id: "helmet-lights", title: "Helmet Lights for Night Trails", pk: "helmet lights", kws: []string{"helmet mounts", "night riding"},
				topic:   [2]string{"A helmet light points wherever you look, which is exactly what you need in tight corners.", "Pair it with a wide bar light so the beam is not the only thing lighting the trail."},
				heading: "Two beams"},
		},
	},
}

var tsTerms = []tsTerm{
	{id: "gravel-riding", title: "Gravel Riding", url: "/bikes/gravel/", pk: "gravel riding", sector: "bikes",
		kws: []string{"gravel routes"}, attrs: map[string][]string{"terrain": {"gravel"}},
		body: [3]string{
			"Gravel riding links quiet lanes, farm tracks and forest roads into routes that traffic never finds.",
			"Everything in this section was chosen for mixed surfaces: frames with room for wide tyres, wheels that shrug off potholes and kit that copes with dust and mud alike.",
			"Start with a short loop close to home, learn how your bike behaves on loose ground, and extend the route a little every weekend.",
		}},
	{id: "winter-cycling", title: "Winter Cycling", url: "/topics/winter-cycling/", pk: "winter cycling",
		kws: []string{"cycling in winter"}, attrs: map[string][]string{"season": {"winter"}},
		body: [3]string{
			"Winter cycling is mostly a matter of preparation: lights, layers and tyres that grip on wet and gritty roads.",
			"Riders who keep going through the dark months arrive in spring fitter and far more confident in traffic than those who stop.",
			"The guides and products gathered here were chosen for short days, cold mornings and salty roads.",
		}},
	{id: "carbon-components", title: "Carbon Components", url: "/materials/carbon/", pk: "carbon components",
		kws: []string{"carbon fibre parts"}, attrs: map[string][]string{"material": {"carbon"}},
		body: [3]string{
			"Carbon fibre lets designers put strength exactly where a part needs it and save weight everywhere else.",
			"It is not fragile, but it dislikes clamping mistakes, so a torque wrench belongs in every carbon owner's toolbox.",
			"This page gathers the frames, wheels and parts we sell in carbon, with our advice on caring for them.",
		}},
	{id: "steel-bikes", title: "Steel Bikes", url: "/materials/steel/", pk: "steel bikes",
		kws: []string{"steel frames"}, attrs: map[string][]string{"material": {"steel"}},
		body: [3]string{
			"Steel is the traditional frame material, and it is back in fashion for good reasons: comfort, durability and easy repairs.",
			"A steel frame can be welded or brazed by almost any framebuilder if it is ever damaged far from home.",
			"Here you will find the steel bikes we stock and the guides that explain why riders love them.",
		}},
}

var tsProducts = []tsProduct{
	{id: "ferrous-gr", title: "Cadence Ferrous GR Steel Gravel Bike", url: "/shop/ferrous-gr/", pk: "Ferrous GR", cluster: "gravel-bikes", sector: "bikes",
		kws: []string{"Ferrous GR gravel bike", "steel gravel frame"}, attrs: map[string][]string{"material": {"steel"}, "terrain": {"gravel"}},
		namedBy: []string{"gravel-bikes"}, hubs: []string{"gravel-bikes"},
		body: [3]string{
			"The Ferrous GR is our own steel frame, built for riders who want one bike for commuting, weekend gravel rides and the occasional tour.",
			"Its double-butted tubes give a lively ride, the frame takes tyres up to fifty millimetres wide, and there are mounts for three bottles, a rack and full mudguards.",
			"It comes with a single chainring drivetrain, hydraulic disc brakes and tubeless-ready wheels.",
		}},
	{id: "beacon-1200", title: "Beacon 1200 Front Light", url: "/shop/beacon-1200/", pk: "Beacon 1200", sector: "gear",
		kws: []string{"Beacon 1200 front light", "rechargeable front light"}, attrs: map[string][]string{"season": {"winter"}, "terrain": {"city"}},
		namedBy: []string{"bike-lights", "commuter-bikes"}, hubs: []string{"bike-lights", "commuter-bikes"},
		body: [3]string{
			"The Beacon 1200 puts twelve hundred lumens on the road in a cut-off beam that lights the lane without dazzling oncoming traffic.",
			"Side windows make it visible at junctions, and a daytime flash mode runs for more than twenty hours on one charge.",
			"It charges over USB-C in three hours and mounts on any round or aero handlebar without tools.",
		}},
	{id: "cityline-fenders", title: "Cityline Full Mudguard Set", url: "/shop/cityline-fenders/", pk: "Cityline mudguards", sector: "gear",
		kws: []string{"full mudguard set", "city mudguards"}, attrs: map[string][]string{"terrain": {"city"}, "season": {"all-season"}},
		hubs: []string{"commuter-bikes"},
		body: [3]string{
			"The Cityline set covers both wheels from the hub to well past the tyre, so spray stays off your trousers and off the rider behind you.",
			"Stainless stays and quick-release tabs let the guards come off in a minute when you clean the bike or pack it in a car.",
			"It fits tyres up to forty-five millimetres wide on frames with eyelets, and a clip kit covers frames without them.",
		}},
	{id: "aero-50", title: "Aero 50 Carbon Wheelset", url: "/shop/aero-50/", pk: "Aero 50 wheelset",
		kws: []string{"Aero 50", "carbon clincher wheelset"}, attrs: map[string][]string{"material": {"carbon"}, "terrain": {"road"}},
		namedBy: []string{"bike-wheels", "road-bikes"}, hubs: []string{"bike-wheels", "road-bikes"},
		body: [3]string{
			"The Aero 50 wheelset pairs fifty millimetre carbon rims with our own sealed-bearing hubs for fast, stable riding on open roads.",
			"The rims are tubeless ready and twenty-five millimetres wide inside, which suits modern tyres of twenty-eight to thirty-two millimetres.",
			"At just under fifteen hundred grams a pair they climb as well as they descend.",
		}},
}

// tsDate is the publication date of the n-th page of a group: hubs come
// out over January, articles over February, the rest over March.
func tsDate(month time.Month, n int) *time.Time {
	d := time.Date(2026, month, 2+n, 9, 0, 0, 0, time.UTC)
	return &d
}

// customSite is the generated site's site.updated event and its pages'
// content.generated events (version 1 each), in the order a producer that
// publishes its hubs first would send them: the 8 hubs, then the home page,
// the sector pages, the supporting articles cluster by cluster, the term
// pages and the products.
func customSite(siteID string) (structure events.Event, pages []events.Event) {
	data := events.SiteUpdatedData{
		Site:       events.SiteInfo{ID: siteID, BaseURL: "https://www.cadence-cycles.example", Name: tsSiteName, Policy: "sag"},
		Sectors:    tsSectors,
		Attributes: tsAttributes,
	}
	for _, c := range tsClusters {
		data.Clusters = append(data.Clusters, events.ClusterInfo{ID: c.id, SectorID: c.sector, Name: c.name,
			PrimaryKeyword: c.pk, Keywords: c.kws, Attributes: c.attrs})
	}
	structure = mustEvent(events.SiteUpdated, siteID, "cadence-site-"+siteID, data)
	for _, p := range customSitePages() {
		pages = append(pages, customPageEvent(siteID, p))
	}
	return structure, pages
}

// customPageEvent is the content.generated event of one generated page.
func customPageEvent(siteID string, p events.PageInfo) events.Event {
	return mustEvent(events.ContentGenerated, siteID, fmt.Sprintf("cadence-%s-v%d", p.ID, p.Version), events.ContentData{Page: p})
}

// customSitePages are the generated pages in customSite's order.
func customSitePages() []events.PageInfo {
	var out []events.PageInfo
	for i, c := range tsClusters {
		out = append(out, events.PageInfo{ID: c.id, URL: c.url, Title: c.title, Kind: "hub", ClusterID: c.id, SectorID: c.sector,
			PrimaryKeyword: c.pk, Keywords: c.kws, Attributes: c.attrs, PublishedAt: tsDate(time.January, i), Version: 1, HTML: hubHTMLFor(i)})
	}
	out = append(out, events.PageInfo{ID: "home", URL: "/", Title: "Cadence Cycles: Bikes, Parts and Honest Advice", Kind: "home",
		PrimaryKeyword: "bike shop", Keywords: []string{"cycling shop"}, Priority: 1, PublishedAt: tsDate(time.March, 0), Version: 1, HTML: homeHTML()})
	sectorPK := map[string][2]string{"bikes": {"new bikes", "Bikes: Road, Gravel, Mountain and Commuter"}, "gear": {"cycling gear", "Parts & Gear: Tyres, Wheels, Clothing and Lights"}}
	for i, s := range tsSectors {
		out = append(out, events.PageInfo{ID: s.ID, URL: s.URL, Title: sectorPK[s.ID][1], Kind: "sector", SectorID: s.ID,
			PrimaryKeyword: sectorPK[s.ID][0], PublishedAt: tsDate(time.March, 1+i), Version: 1, HTML: sectorHTML(s.ID)})
	}
	n := 0
	for i, c := range tsClusters {
		for j, a := range c.articles {
			out = append(out, events.PageInfo{ID: a.id, URL: strings.TrimSuffix(c.url, "/") + "/" + a.id + "/", Title: a.title, Kind: "supporting",
				ClusterID: c.id, SectorID: c.sector, PrimaryKeyword: a.pk, Keywords: a.kws,
				PublishedAt: tsDate(time.February, n%26), Version: 1, HTML: articleHTML(i, j)})
			n++
		}
	}
	for i, t := range tsTerms {
		out = append(out, events.PageInfo{ID: t.id, URL: t.url, Title: t.title, Kind: "term", SectorID: t.sector,
			PrimaryKeyword: t.pk, Keywords: t.kws, Attributes: t.attrs, PublishedAt: tsDate(time.March, 3+i), Version: 1, HTML: termHTML(t)})
	}
	for i, p := range tsProducts {
		out = append(out, events.PageInfo{ID: p.id, URL: p.url, Title: p.title, Kind: "product", ClusterID: p.cluster, SectorID: p.sector,
			PrimaryKeyword: p.pk, Keywords: p.kws, Attributes: p.attrs, PublishedAt: tsDate(time.March, 7+i), Version: 1, HTML: productHTML(p)})
	}
	return out
}

func clusterByID(id string) tsCluster {
	for _, c := range tsClusters {
		if c.id == id {
			return c
		}
	}
	panic("no cluster " + id)
}

// line is the k-th sentence of a cluster's trade talk, wrapping round.
func (c tsCluster) line(k int) string { return c.lines[k%len(c.lines)] }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// articleHTML is supporting article j of cluster i. Paragraphs 1–2 name the
// hub (four wordings, by j); paragraphs 3 and 5 name siblings j+1 (by its
// primary keyword) and j+2 (by its first keyword variation).
func articleHTML(i, j int) string {
	c := tsClusters[i]
	a := c.articles[j]
	next, after := c.articles[(j+1)%4], c.articles[(j+2)%4]
	var p1, p2 string
	switch j {
	case 0:
		p1 = fmt.Sprintf("When it comes to %s, few questions come up in our workshop as often as %s. %s", c.pk, a.pk, a.topic[0])
		p2 = fmt.Sprintf("%s %s %s", a.topic[1], c.line(j), c.line(j+1))
	case 1:
		p1 = fmt.Sprintf("Our guide %s covers the big decisions; this article looks closely at %s. %s", c.title, a.pk, a.topic[0])
		p2 = fmt.Sprintf("%s The advice holds for all the %s we sell, whatever their price. %s", a.topic[1], c.pk, c.line(j))
	case 2:
		p1 = fmt.Sprintf("Riders shopping for %s often ask us about %s before anything else. %s", c.kws[1], a.pk, a.topic[0])
		p2 = fmt.Sprintf("%s It is one of the details that separates good %s from merely expensive ones. %s", a.topic[1], c.pk, c.line(j))
	default:
		p1 = fmt.Sprintf("%s Getting %s right is one of the cheapest ways to enjoy your %s more.", a.topic[0], a.pk, c.pk)
		p2 = fmt.Sprintf("%s %s %s", a.topic[1], c.line(j), c.line(j+2))
	}
	p3 := fmt.Sprintf("%s %s %s Once that is sorted, it is worth reading about %s as well, since the two affect each other more than most riders realise.",
		c.line(j+3), c.line(j+4), c.line(j+5), next.pk)
	p4 := fmt.Sprintf("We see the same pattern every week in the shop. Riders arrive with a problem they have been living with for months, and the fix turns out to be simple once someone looks at the whole bike rather than one part of it. %s %s",
		c.line(j+1), c.line(j+2))
	p5 := fmt.Sprintf("Take your time, change one thing at a time and keep notes, because a small change is easy to forget after a week of riding. %s %s If you want to go further, our piece on %s picks up where this one stops.",
		c.line(j+4), c.line(j), after.kws[0])
	p6 := fmt.Sprintf("%s Whatever you decide, ride it for a few weeks before judging. Most of the riders we help say the same thing afterwards: they wish they had asked sooner.", c.line(j+5))
	return fmt.Sprintf("<h1>%s</h1>\n<p>%s</p>\n<p>%s</p>\n<h2>%s</h2>\n<p>%s</p>\n<p>%s</p>\n<h2>Putting it into practice</h2>\n<p>%s</p>\n<p>%s</p>\n",
		a.title, p1, p2, a.heading, p3, p4, p5, p6)
}

// partnerName is how a hub names the k-th hub it mentions: the first by
// its primary keyword, the second by its second keyword variation, the
// third by its third, so that not every link to a hub has one anchor.
func partnerName(k int, partner tsCluster) string {
	switch k % 3 {
	case 0:
		return partner.pk
	case 1:
		return partner.kws[1]
	default:
		return partner.kws[2]
	}
}

// hubHTMLFor is the hub of cluster i.
func hubHTMLFor(i int) string {
	c := tsClusters[i]
	var b strings.Builder
	fmt.Fprintf(&b, "<h1>%s</h1>\n", c.title)
	fmt.Fprintf(&b, "<p>%s %s %s %s</p>\n", capitalize(c.pk), c.intro, c.line(0), c.line(1))
	b.WriteString("<h2>Start here</h2>\n")
	for k, a := range c.articles {
		name := a.pk
		if k%2 == 1 {
			name = a.kws[0]
		}
		fmt.Fprintf(&b, "<p>%s %s Our guide to %s explains the details step by step, with the mistakes we see most often in the workshop.</p>\n",
			c.line(k+2), a.topic[0], name)
	}
	fmt.Fprintf(&b, "<h2>Beyond %s</h2>\n", strings.ToLower(c.name))
	for k, id := range c.partners {
		p := clusterByID(id)
		fmt.Fprintf(&b, "<p>%s Many riders who come to us for advice on this end up looking at %s too, because the two share more than you might think. %s</p>\n",
			c.line(k+3), partnerName(k, p), p.line(k))
	}
	for _, p := range tsProducts {
		for _, by := range p.namedBy {
			if by == c.id {
				fmt.Fprintf(&b, "<p>If you want one recommendation from our own range, start with the %s. %s %s</p>\n", p.pk, p.body[0], c.line(5))
			}
		}
	}
	fmt.Fprintf(&b, "<p>%s Whatever you choose, our workshop team is happy to check it over before your first long ride.</p>\n", c.line(4))
	return b.String()
}

// homeHTML names both sectors and every hub's primary keyword, two names a
// paragraph, far enough apart for two links.
func homeHTML() string {
	var b strings.Builder
	b.WriteString("<h1>Cadence Cycles: Bikes, Parts and Honest Advice</h1>\n")
	b.WriteString("<p>We are an independent shop run by riders, for riders. Our range of new bikes covers everything from quick summer road machines to sturdy year-round commuters, and every one of them is built and checked in our own workshop before it leaves. " +
		"We test ride each model on the lanes and forest tracks around the shop, adjust the gears and brakes by hand, and fit the saddle and bars to you before you ride away. " +
		"Alongside the bikes we stock the cycling gear that keeps you riding, chosen by staff who use it every week in every kind of weather.</p>\n")
	for k := 0; k < len(tsClusters); k += 2 {
		a, c := tsClusters[k], tsClusters[k+1]
		fmt.Fprintf(&b, "<p>Our guide to %s is the place to start if you are weighing up a new purchase. %s %s We keep it up to date as new models arrive, and the articles linked from it answer the questions we hear most often. "+
			"Just as popular is our advice on %s, written by the staff who ride them every day.</p>\n", a.pk, a.line(0), a.line(3), c.pk)
	}
	b.WriteString("<p>Drop in for a chat, book a service or ask us anything. We would rather help you ride more than sell you something you do not need.</p>\n")
	return b.String()
}

// sectorHTML introduces a sector; its list of hubs is generated.
func sectorHTML(id string) string {
	var names []string
	for _, c := range tsClusters {
		if c.sector == id {
			names = append(names, strings.ToLower(c.name))
		}
	}
	return fmt.Sprintf("<h1>%s</h1>\n<p>This section brings together our guides on %s. Each guide explains how to choose well, what the jargon means and how to look after what you buy.</p>\n"+
		"<p>Start with the guide that matches your next purchase, and follow the links from there into the detailed articles our staff have written over the years.</p>\n",
		map[string]string{"bikes": "Bikes", "gear": "Parts &amp; Gear"}[id], strings.Join(names, ", "))
}

func termHTML(t tsTerm) string {
	return fmt.Sprintf("<h1>%s</h1>\n<p>%s</p>\n<p>%s</p>\n<h2>How to use this page</h2>\n<p>%s</p>\n", t.title, t.body[0], t.body[1], t.body[2])
}

// productHTML describes a product and names the hubs of its topic.
func productHTML(p tsProduct) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>%s %s</p>\n<h2>Specifications</h2>\n<p>%s</p>\n", p.title, p.body[0], p.body[1], p.body[2])
	for _, id := range p.hubs {
		c := clusterByID(id)
		fmt.Fprintf(&b, "<p>Not sure it is the right choice? %s %s Our buyer's guide to %s compares it with the alternatives and explains what to look for.</p>\n", c.line(1), c.line(2), c.pk)
	}
	return b.String()
}

// customPagesHomeAndSectorsLast is customSite's pages with the home page
// and the sector pages moved to the end, the rest in their order.
func customPagesHomeAndSectorsLast(pages []events.Event) []events.Event {
	var first, last []events.Event
	for _, ev := range pages {
		if kind := pageKindOf(ev); kind == "home" || kind == "sector" {
			last = append(last, ev)
		} else {
			first = append(first, ev)
		}
	}
	return append(first, last...)
}

// names reports whether text names name as whole words, case folded.
func names(text, name string) bool {
	return regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(name) + `\b`).MatchString(text)
}

// TestTheGeneratedSiteHasTheShapeItsDocumentationGives checks the
// generator itself, without the service: the counts, the order, the
// shared attribute values and what each page's text names, so that an
// acceptance failure is never the generator's.
func TestTheGeneratedSiteHasTheShapeItsDocumentationGives(t *testing.T) {
	t.Parallel()
	structure, evs := customSite("shape")
	again, evs2 := customSite("shape")
	if !reflect.DeepEqual(structure, again) || !reflect.DeepEqual(evs, evs2) {
		t.Fatal("two calls gave different events")
	}
	for _, ev := range append([]events.Event{structure}, evs...) {
		raw, err := ev.Encode()
		if err == nil {
			_, err = events.Decode(raw)
		}
		if err != nil {
			t.Errorf("event %s does not meet the contract: %v", ev.ID, err)
		}
	}
	pages := customSitePages()
	kinds := map[string]int{}
	for i, p := range pages {
		kinds[p.Kind]++
		if (i < len(tsClusters)) != (p.Kind == "hub") {
			t.Errorf("page %d is %s (%s): the hubs must come first", i, p.ID, p.Kind)
		}
	}
	if want := map[string]int{"home": 1, "sector": 2, "hub": 8, "supporting": 32, "term": 4, "product": 4}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("pages by kind %v, want %v", kinds, want)
	}

	for _, c := range tsClusters {
		one, two := 0, 0
		for _, o := range tsClusters {
			shared := 0
			for f := range facetsOf(o) {
				if facetsOf(c)[f] && o.id != c.id {
					shared++
				}
			}
			if shared >= 1 {
				one++
			}
			if shared >= 2 {
				two++
			}
		}
		if one < 5 || two < 2 {
			t.Errorf("hub %s shares a value with %d hubs and two with %d, want at least 5 and 2", c.id, one, two)
		}
		for _, id := range c.partners {
			if shared := facetsOf(clusterByID(id)); !func() bool {
				for f := range facetsOf(c) {
					if shared[f] {
						return true
					}
				}
				return false
			}() {
				t.Errorf("hub %s names hub %s, which shares no value with it", c.id, id)
			}
		}
	}

	byID := map[string]events.PageInfo{}
	for _, p := range pages {
		byID[p.ID] = p
	}
	paragraphs := func(id string) []string { return markup.ParagraphTexts([]byte(byID[id].HTML)) }
	for _, c := range tsClusters {
		hub := strings.Join(paragraphs(c.id), " ")
		for k, a := range c.articles {
			paras := paragraphs(a.id)
			if len(paras) < 6 || !names(paras[0]+" "+paras[1], c.pk) {
				t.Errorf("article %s does not name its hub's primary keyword %q in paragraph 1 or 2: %q", a.id, c.pk, paras[:2])
			}
			rest := strings.Join(paras[2:], " ")
			if next, after := c.articles[(k+1)%4], c.articles[(k+2)%4]; !names(rest, next.pk) || !names(rest, after.kws[0]) {
				t.Errorf("article %s does not name its siblings %q and %q after paragraph 2", a.id, next.pk, after.kws[0])
			}
			if !names(hub, a.pk) && !names(hub, a.kws[0]) {
				t.Errorf("hub %s does not name its article %s", c.id, a.id)
			}
		}
		if len(c.partners) < 2 || len(c.partners) > 3 || !names(hub, clusterByID(c.partners[0]).pk) {
			t.Errorf("hub %s names %v, want 2-3 hubs, the first by its primary keyword", c.id, c.partners)
		}
		for k, id := range c.partners {
			if !names(hub, partnerName(k, clusterByID(id))) {
				t.Errorf("hub %s does not name hub %s", c.id, id)
			}
		}
	}
	home := strings.Join(paragraphs("home"), " ")
	for _, c := range tsClusters {
		if !names(home, c.pk) {
			t.Errorf("the home page does not name hub %s by %q", c.id, c.pk)
		}
	}
	for _, s := range []string{"bikes", "gear"} {
		if !names(home, byID[s].PrimaryKeyword) {
			t.Errorf("the home page does not name sector %s by %q", s, byID[s].PrimaryKeyword)
		}
	}
	for _, p := range tsProducts {
		for _, id := range p.namedBy {
			if !names(strings.Join(paragraphs(id), " "), p.pk) {
				t.Errorf("hub %s does not name product %s", id, p.id)
			}
		}
		for _, id := range p.hubs {
			if !names(strings.Join(paragraphs(p.id), " "), clusterByID(id).pk) {
				t.Errorf("product %s does not name hub %s", p.id, id)
			}
		}
	}
}
